import Testing

/// The suites that change the process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `LISTEN_FDS`,
/// `JOURNAL_STREAM`), which every thread of the test process shares, nested here so they run one test at a time.
@Suite("Process environment", .serialized)
struct ProcessEnvironmentTests {}
