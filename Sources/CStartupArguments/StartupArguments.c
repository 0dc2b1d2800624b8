// settingsctl's command line, without reading /proc/self/maps.
//
// The Swift runtime's static library finds argv, in a static initializer of its CommandLine.cpp, by reading
// /proc/self/maps (open, read, and some forty sscanf calls: a fifth of the instructions of a `settingsctl get`,
// plus the kernel's work of writing the map). glibc hands argc and argv to every initializer in .init_array, so
// settingsctl takes them there, and defines the two functions of that object file: the linker then has no reason
// to take it from libswiftCore.a, and its initializer never runs. In a dynamically linked build these definitions
// merely shadow the runtime's, with the same result.
//
// Only the settingsctl executable links this target.

#include "CStartupArguments.h"

#include <stddef.h>

static int startupCount;
static char **startupVector;
static int overrideCount;
static char **overrideVector;

static void captureStartupArguments(int argc, char **argv, char **envp) {
    (void)envp;
    startupCount = argc;
    startupVector = argv;
}

__attribute__((used, section(".init_array"))) static void (*const captureEntry)(int, char **, char **) =
    captureStartupArguments;

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    static char *empty[] = {NULL};
    if (overrideVector != NULL) {
        *outArgLen = overrideCount;
        return overrideVector;
    }
    if (startupVector == NULL) {
        *outArgLen = 0;
        return empty;
    }
    *outArgLen = startupCount;
    return startupVector;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    overrideVector = argv;
    overrideCount = argc;
}
