import Foundation
import Logging
import Testing
import ViperSystemd

#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

/// Tests that run only in a child process a test starts from this test binary, to do what the test process
/// cannot: be socket-activated, or log inside a private mount namespace where a journald of its own listens.
///
/// `VIPER_SYSTEMD_TEST_CHILD` says which one runs; `VIPER_SYSTEMD_TEST_DIRECTORY` is where results go.
@Suite("Child process entry points", .enabled(if: ProcessEnvironment.value("VIPER_SYSTEMD_TEST_CHILD") != nil))
struct ChildEntryPoints {
    /// The command line that runs the entry point `function` (its name) of this test binary.
    static func command(running function: String) -> [String] {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return [
            executable ?? CommandLine.arguments[0], "--testing-library", "swift-testing",
            "--filter", "ChildEntryPoints/\(function)",
        ]
    }

    /// Writes what it was passed to `socket-activation` in the directory: one line per descriptor, then the
    /// environment and the result of a second call and of accepting the connection that started it.
    @Test(
        "socket-activated by systemd-socket-activate",
        .enabled(if: ProcessEnvironment.value("VIPER_SYSTEMD_TEST_CHILD") == "socket-activation")
    )
    func socketActivated() throws {
        let directory = try #require(ProcessEnvironment.value("VIPER_SYSTEMD_TEST_DIRECTORY"))
        let descriptors = SocketActivation.listeningDescriptors()
        var lines = descriptors.map { "fd=\($0.fd) name=\($0.name) listening=\(SocketActivation.isListening($0.fd))" }
        lines.append("LISTEN_FDS=\(ProcessEnvironment.value("LISTEN_FDS") ?? "unset")")
        lines.append("second call=\(SocketActivation.listeningDescriptors().count)")
        if let socket = descriptors.first {
            let connection = accept(socket.fd, nil, nil)
            lines.append("accepted=\(connection >= 0)")
            close(connection)
        }
        try lines.joined(separator: "\n").write(
            toFile: directory + "/socket-activation",
            atomically: true,
            encoding: .utf8
        )
    }

    /// Starts journald in the private namespace's /run, logs an audit entry and an error through
    /// `JournalLogHandler`, stops journald once it has written them, and logs a warning, which has nowhere to go
    /// but standard error.
    @Test("logs to a private journald", .enabled(if: ProcessEnvironment.value("VIPER_SYSTEMD_TEST_CHILD") == "journal"))
    func logToJournald() async throws {
        let directory = try #require(ProcessEnvironment.value("VIPER_SYSTEMD_TEST_DIRECTORY"))
        let run = try #require(ProcessEnvironment.value("VIPER_SYSTEMD_TEST_RUN"))
        let notify = try NotifySocket(path: directory + "/journald-notify.sock", sender: nil)
        let journald = Process()
        journald.executableURL = URL(fileURLWithPath: "/lib/systemd/systemd-journald")
        journald.environment = ["NOTIFY_SOCKET": notify.path]
        try journald.runAlone()
        let ready = await notify.next(timeout: .seconds(30))
        guard ready?.split(separator: "\n").contains("READY=1") == true else {
            journald.terminate()
            journald.waitUntilExit()
            Issue.record("journald did not get ready: \(ready ?? "no message")")
            return
        }

        var logger = Logger(label: "viper.test") { JournalLogHandler(identifier: "viper-settingsd-test", label: $0) }
        logger[metadataKey: "test_run"] = "\(run)"
        logger.notice(
            "network.proxy.mode changed",
            metadata: [
                "module": "network", "key": "proxy.mode", "old_value": "\"none\"", "new_value": "\"manual\"",
                "client_uid": "1000", "client_pid": "4242", "source": "local",
            ]
        )
        logger.error(
            "schema not reloaded",
            error: ChildError(),
            metadata: ["module": "network", "detail": "line one\nline two"]
        )
        // journald handles SIGTERM after the messages already queued on its socket: both entries are written.
        journald.terminate()
        journald.waitUntilExit()
        logger.warning("journald is gone")
    }

    struct ChildError: Error, CustomStringConvertible {
        var description: String { "broken schema" }
    }
}
