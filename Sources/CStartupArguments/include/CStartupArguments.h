#ifndef C_STARTUP_ARGUMENTS_H
#define C_STARTUP_ARGUMENTS_H

/// The process's arguments as the C library handed them to the program's initializers: settingsctl's
/// `CommandLine.arguments` (see StartupArguments.c).
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);

#endif
