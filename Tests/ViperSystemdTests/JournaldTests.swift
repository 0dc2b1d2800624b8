import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

/// `JournalLogHandler` against a real journald: a child process of this test binary, in a private mount
/// namespace with a tmpfs on /run, starts journald and logs; the test reads the entries back with journalctl.
@Suite("JournalLogHandler with a real journald", .timeLimit(.minutes(1)))
struct JournaldTests {
    static let canRun =
        getuid() == 0
        && ["/lib/systemd/systemd-journald", "/usr/bin/unshare", "/usr/bin/journalctl"].allSatisfy { (path: String) in
            access(path, X_OK) == 0
        }

    /// Run by `sh` inside the new mount namespace: a private /run, the journal directories bound to the test's
    /// directory (runtime) and to an empty one (persistent, so the host's /var/log/journal is not touched).
    static let namespaceScript = """
        mount -t tmpfs -o mode=0755 tmpfs /run
        mkdir -p /run/log/journal
        mount --bind "$1/runtime" /run/log/journal
        if [ -d /var/log/journal ]; then mount --bind "$1/persistent" /var/log/journal; fi
        shift
        exec "$@"
        """

    @Test(
        "entries carry MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, the code location and the metadata fields",
        .enabled(if: canRun, "needs root, unshare and systemd-journald")
    )
    func entriesReadBack() async throws {
        try await TemporaryDirectory.with { directory in try await Self.logAndReadBack(in: directory) }
    }

    static func logAndReadBack(in directory: String) async throws {
        for name in ["runtime", "persistent"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: true)
        }
        let run = UUID().uuidString
        let child = try ChildProcess(
            "/usr/bin/timeout",
            ["-k", "5", "50", "/usr/bin/unshare", "--mount", "--propagation", "private"]
                + ["/bin/sh", "-euc", Self.namespaceScript, "sh", directory]
                + ChildEntryPoints.command(running: "logToJournald"),
            environment: ChildProcess.environment([
                "VIPER_SYSTEMD_TEST_CHILD": "journal", "VIPER_SYSTEMD_TEST_DIRECTORY": directory,
                "VIPER_SYSTEMD_TEST_RUN": run,
            ])
        )
        let (status, output) = await child.finish()
        try #require(status == 0, "the child failed:\n\(output)")

        let journalctl = try ChildProcess(
            "/usr/bin/journalctl",
            ["--directory=\(directory)/runtime", "--output=json", "--no-pager", "TEST_RUN=\(run)"],
            environment: ChildProcess.environment([:])
        )
        let (journalStatus, json) = await journalctl.finish()
        try #require(journalStatus == 0, "journalctl failed:\n\(json)")
        let entries = try json.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        try #require(entries.count == 2, "entries: \(entries)")

        let audit = entries[0]
        let expected = [
            "MESSAGE": "network.proxy.mode changed", "PRIORITY": "5", "SYSLOG_IDENTIFIER": "viper-settingsd-test",
            "LOGGER_LABEL": "viper.test", "MODULE": "network", "KEY": "proxy.mode", "OLD_VALUE": "\"none\"",
            "NEW_VALUE": "\"manual\"", "CLIENT_UID": "1000", "CLIENT_PID": "4242", "SOURCE": "local",
            "CODE_FUNC": "logToJournald()", "_TRANSPORT": "journal",
        ]
        for (field, value) in expected {
            #expect(audit[field] as? String == value, "\(field)")
        }
        #expect(audit["CODE_FILE"] as? String == "ViperSystemdTests/ChildEntryPoints.swift")
        #expect((audit["CODE_LINE"] as? String).flatMap(Int.init) != nil)

        let error = entries[1]
        #expect(error["MESSAGE"] as? String == "schema not reloaded")
        #expect(error["PRIORITY"] as? String == "3")
        #expect(error["DETAIL"] as? String == "line one\nline two")
        #expect(error["ERROR_MESSAGE"] as? String == "broken schema")
        // Once journald is gone, entries go to standard error with their priority.
        #expect(output.contains("<4>journald is gone\n"))
    }
}
