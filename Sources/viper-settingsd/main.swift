import CServiceSignals
import ViperDaemon

// SIGHUP is ignored from the C library's initializers on (named here so that the linker keeps them).
_ = viper_service_hangup_ignored_at_start()
await DaemonCommand.start()
