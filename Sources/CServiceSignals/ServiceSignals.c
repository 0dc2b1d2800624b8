// SIGHUP asks viper-settingsd and viper-settings-apply to reload. Until the service that reloads catches it, its
// default action would end the process, and systemd does not restart a service a signal ended cleanly. Ignoring it
// from Swift's main comes several milliseconds after exec (the runtime's start-up, the static binary's page
// faults): a script's `kill -HUP` right after starting the daemon ended it. An initializer in .init_array runs
// before any of that.
//
// Only the service executables link this target.

#include "CServiceSignals.h"

#include <signal.h>
#include <stddef.h>

static bool hangupIgnored;

static void ignoreHangup(int argc, char **argv, char **envp) {
    (void)argc;
    (void)argv;
    (void)envp;
    struct sigaction action = {0};
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    hangupIgnored = sigaction(SIGHUP, &action, NULL) == 0;
    // Signals the services do not use, whose default action ends a process without its graceful stop (no drain, the
    // socket left behind): `systemctl kill -s USR1` or a log-rotation script's signal must not stop them.
    sigaction(SIGUSR1, &action, NULL);
    sigaction(SIGUSR2, &action, NULL);
    sigaction(SIGALRM, &action, NULL);
}

__attribute__((used, section(".preinit_array"))) static void (*const ignoreHangupEntry)(int, char **, char **) =
    ignoreHangup;

bool viper_service_hangup_ignored_at_start(void) { return hangupIgnored; }
