import Logging
import Testing
import ViperSystemd

@Suite("JournalLogHandler fields")
struct JournalLogHandlerTests {
    static func event(
        _ level: Logger.Level = .info,
        _ message: Logger.Message = "hello",
        metadata: Logger.Metadata? = nil,
        error: (any Error)? = nil
    ) -> LogEvent {
        LogEvent(
            level: level,
            message: message,
            error: error,
            metadata: metadata,
            source: "ViperDaemon",
            file: "ViperDaemon/Daemon.swift",
            function: "run()",
            line: 42
        )
    }

    @Test("an entry starts with MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and the code location")
    func handlerFields() {
        let handler = JournalLogHandler(identifier: "viper-settingsd", metadataProvider: nil)
        #expect(
            handler.fields(for: Self.event(.warning, "disk almost full")) == [
                "MESSAGE=disk almost full", "PRIORITY=4", "SYSLOG_IDENTIFIER=viper-settingsd",
                "CODE_FILE=ViperDaemon/Daemon.swift", "CODE_LINE=42", "CODE_FUNC=run()",
            ]
        )
    }

    @Test("LOGGER_LABEL is there when a label is given")
    func label() {
        let handler = JournalLogHandler(identifier: "viper-settingsd", label: "viper.ipc", metadataProvider: nil)
        #expect(handler.fields(for: Self.event()).last == "LOGGER_LABEL=viper.ipc")
    }

    @Test("every metadata item becomes an upper-case field, sorted by key, values as their descriptions")
    func auditMetadata() {
        var handler = JournalLogHandler(identifier: "viper-settingsd", metadataProvider: nil)
        handler[metadataKey: "module"] = "network"
        let fields = handler.fields(
            for: Self.event(
                .notice,
                "network.proxy.mode changed",
                metadata: [
                    "key": "proxy.mode", "old_value": "\"none\"", "new_value": "\"manual\"", "client_uid": "1000",
                    "client_pid": .stringConvertible(4242), "source": "local", "hosts": ["a", "b"],
                ]
            )
        )
        #expect(
            fields.dropFirst(6) == [
                "CLIENT_PID=4242", "CLIENT_UID=1000", "HOSTS=[\"a\", \"b\"]", "KEY=proxy.mode", "MODULE=network",
                "NEW_VALUE=\"manual\"", "OLD_VALUE=\"none\"", "SOURCE=local",
            ]
        )
        #expect(fields[1] == "PRIORITY=5")
    }

    @Test("values may span lines; keys that would clash with the handler's fields are prefixed")
    func multilineAndClashes() {
        let handler = JournalLogHandler(identifier: "viper-settingsd", metadataProvider: nil)
        let fields = handler.fields(for: Self.event(metadata: ["detail": "line one\nline two", "message": "other"]))
        #expect(fields.dropFirst(6) == ["DETAIL=line one\nline two", "X_MESSAGE=other"])
        #expect(fields.first == "MESSAGE=hello")
    }

    @Test("metadata merges handler, then provider, then call metadata, each overriding the one before")
    func mergeOrder() {
        let provider = Logger.MetadataProvider { ["request": "from-provider", "task": "t1"] }
        var handler = JournalLogHandler(identifier: "viper-settingsd", metadataProvider: provider)
        handler.metadata = ["request": "from-handler", "module": "network", "key": "from-handler"]
        let fields = handler.fields(for: Self.event(metadata: ["key": "from-call"]))
        #expect(
            fields.dropFirst(6) == ["KEY=from-call", "MODULE=network", "REQUEST=from-provider", "TASK=t1"]
        )
    }

    @Test("an error adds ERROR_MESSAGE and ERROR_TYPE, and the level maps to its priority")
    func error() {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "schema is broken" }
        }
        let handler = JournalLogHandler(identifier: "viper-settingsd", metadataProvider: nil)
        let fields = handler.fields(for: Self.event(.critical, "failed", error: Broken()))
        #expect(fields[1] == "PRIORITY=2")
        #expect(fields.contains("ERROR_MESSAGE=schema is broken"))
        #expect(fields.contains { $0.hasPrefix("ERROR_TYPE=") && $0.hasSuffix("Broken") })
    }

    @Test("a Logger built on the handler passes its label, level and metadata through")
    func throughLogger() {
        var logger = Logger(label: "viper.test") { JournalLogHandler(identifier: "id", label: $0) }
        logger.logLevel = .debug
        logger[metadataKey: "module"] = "network"
        #expect(logger.logLevel == .debug)
        #expect(logger[metadataKey: "module"] == "network")
        #expect(logger.handler.metadata == ["module": "network"])
    }
}
