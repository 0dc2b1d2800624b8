#ifndef C_SERVICE_SIGNALS_H
#define C_SERVICE_SIGNALS_H

#include <stdbool.h>

/// Whether SIGHUP was set to be ignored when the process started (before the Swift runtime's own start-up), as the
/// services want it until the service that reloads catches it.
bool viper_service_hangup_ignored_at_start(void);

#endif
