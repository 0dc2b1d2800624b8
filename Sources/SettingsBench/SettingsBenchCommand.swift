public import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

extension BenchProtocol: ExpressibleByArgument {}

/// `settings-bench`: a closed-loop load generator for a settings server on a Unix socket, speaking Varlink to
/// viper-settingsd and RESP to redis-server, so that one client measures both.
public struct SettingsBenchCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "settings-bench",
        abstract: "Measure a settings server: N connections, gets and sets without pipelining, ops/s and latency.",
        discussion: """
            Each connection has its own thread and one request in flight: it sends a request, waits for the \
            whole reply, records the latency and sends the next. Connections are made before the run; the \
            warm-up is not recorded. A set stores an integer from 1 to --max-value, a different one from the \
            set before it, so every set is a real change that the server must make durable.

            Varlink (viper-settingsd) sends io.viper.settings.Get {key} and io.viper.settings.Set {key, value}; \
            RESP (redis-server) sends GET key and SET key value. Error replies are counted, not fatal.

            Exit status: 0 when the run completed with no error reply, 1 when some replies were errors, \
            64 on a usage error, 69 when the server cannot be reached or closes a connection.

            Examples:
              settings-bench --socket /run/viper-settings/io.viper.settings --connections 16
              settings-bench --socket /tmp/redis.sock --protocol resp --connections 16 --sets 100 --json
            """
    )

    @Option(help: "The server's Unix socket.")
    var socket: String

    @Option(name: .customLong("protocol"), help: "The server's protocol: varlink or resp.")
    var wire: BenchProtocol = .varlink

    @Option(help: "Connections, each on its own thread with one request in flight.")
    var connections: Int = 1

    @Option(help: "Percent of operations that are sets (0: only gets, 100: only sets).")
    var sets: Int = 0

    @Option(name: .customLong("key"), help: "A key to operate on (repeatable; default: network.proxy.port).")
    var keys: [String] = []

    @Option(help: "A file with one key per line, added to --key.")
    var keysFile: String?

    @Option(help: "Sets store values from 1 to this number.")
    var maxValue: Int = 65535

    @Option(help: "Seconds recorded.")
    var duration: Double = 5

    @Option(help: "Seconds run before recording starts.")
    var warmup: Double = 1

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    public init() {}

    public func run() throws {
        var keys = self.keys
        if let keysFile {
            keys += try Self.readKeys(keysFile)
        }
        if keys.isEmpty { keys = ["network.proxy.port"] }
        guard self.duration.isFinite, self.warmup.isFinite, self.warmup >= 0 else {
            throw ValidationError("--duration and --warmup must be numbers of seconds")
        }
        let workload = BenchWorkload(
            socketPath: self.socket,
            wire: self.wire,
            connections: self.connections,
            setPercent: self.sets,
            keys: keys,
            maximumValue: self.maxValue,
            duration: .nanoseconds(Int64(self.duration * 1e9)),
            warmup: .nanoseconds(Int64(self.warmup * 1e9))
        )
        do {
            try workload.validate()
        } catch {
            throw ValidationError(error.description)
        }
        let result: BenchResult
        do {
            result = try BenchRunner(workload: workload).run()
        } catch {
            Self.standardError("settings-bench: \(error)\n")
            throw ExitCode(69)
        }
        print(self.json ? BenchReport.json(result) : BenchReport.text(result))
        if result.total.errors > 0 {
            Self.standardError("settings-bench: \(result.total.errors) error replies\n")
            throw ExitCode.failure
        }
    }

    /// The non-empty lines of a file, trimmed of spaces; a file that cannot be read is a usage error.
    private static func readKeys(_ path: String) throws -> [String] {
        guard let file = fopen(path, "r") else {
            throw ValidationError("cannot read --keys-file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var keys: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) >= 0, let line {
            let key = String(cString: line).trimmingWhiteSpace()
            if !key.isEmpty { keys.append(key) }
        }
        return keys
    }

    private static func standardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }
}

extension String {
    /// The text without the white space (spaces, tabs, `\n`, `\r\n`) at either end.
    fileprivate func trimmingWhiteSpace() -> String {
        let start = self.firstIndex { !$0.isWhitespace } ?? self.endIndex
        let end = self.lastIndex { !$0.isWhitespace }.map { self.index(after: $0) } ?? start
        return start < end ? String(self[start..<end]) : ""
    }
}
