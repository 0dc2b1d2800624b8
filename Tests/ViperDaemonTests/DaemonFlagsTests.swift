import Glibc
import Logging
import Testing
import ViperTestSupport

@testable import ViperDaemon

@Suite("Flags over the configuration file over the defaults")
struct DaemonFlagsTests {
    /// Writes `text` as viper-settingsd.conf in a new temporary directory and returns the file's path.
    static func configurationFile(_ text: String) throws -> String {
        var template = Array("/tmp/viper-daemon-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(created != nil)
        let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = directory + "/viper-settingsd.conf"
        let file = try #require(fopen(path, "we"))
        fputs(text, file)
        fclose(file)
        return path
    }

    static let environment = ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"]

    static let fullFile = """
        modules-dir = /file/modules
        state-dir = /file/state
        socket = /file/socket
        log-level = warning
        remote = https://file.example/doc.json
        max-message-size = 4096
        remote-poll-interval = 5
        """

    @Test("a log level that is none names where it was given: the file's key, or the flag")
    func badLogLevel() throws {
        let path = try Self.configurationFile("log-level = verbose\n")
        let fromFile = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        }
        #expect("\(fromFile.map { "\($0)" } ?? "")".contains("\(path):1: log-level: log level 'verbose' is not one of"))
        let good = try Self.configurationFile("log-level = debug\n")
        let fromFlag = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: good, logLevel: "loud").resolve(environment: Self.environment, uid: 1000)
        }
        #expect("\(fromFlag.map { "\($0)" } ?? "")".contains("--log-level: log level 'loud' is not one of"))
        // The file's mistake is found even when the flag overrides it, not at the first start without the flag.
        let overridden = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path, logLevel: "info").resolve(environment: Self.environment, uid: 1000)
        }
        #expect(
            "\(overridden.map { "\($0)" } ?? "")".contains("\(path):1: log-level: log level 'verbose' is not one of")
        )
        let flagWins = try DaemonFlags(config: good, logLevel: "error").resolve(
            environment: Self.environment,
            uid: 1000
        )
        #expect(flagWins.logLevel == .error)
    }

    @Test(
        "an empty path in the file is an error naming the file, the line and the key, not the file's own directory",
        arguments: ["modules-dir", "state-dir", "socket", "remote-token-file", "remote-ca-file"]
    )
    func emptyPathInFile(key: String) throws {
        let path = try Self.configurationFile("# paths\n\(key) =\n")
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        }
        #expect(error?.message == "\(path):2: '\(key)' is empty: give a path, or leave the line out for the default")
        let quoted = try Self.configurationFile("\(key) = \"\"\n")
        #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: quoted).resolve(environment: Self.environment, uid: 1000)
        }
    }

    @Test("an empty path flag is an error naming the flag")
    func emptyPathFlag() throws {
        for flags in [
            DaemonFlags(socket: ""), DaemonFlags(stateDirectory: ""), DaemonFlags(modulesDirectory: ""),
            DaemonFlags(config: ""),
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try flags.resolve(environment: Self.environment, uid: 1000)
            }
            #expect(error?.message.hasSuffix(": the path is empty") == true, "\(String(describing: error))")
        }
    }

    @Test("an empty remote is refused, naming where, not taken for off; off turns it off")
    func emptyRemote() throws {
        let path = try Self.configurationFile("# fleet\nremote =\n")
        let file = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        }
        #expect(file?.message == "\(path):2: remote is empty: give the fleet's URL, or off to turn remote sync off")
        let empty = try Self.configurationFile("")
        let flag = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: empty, remote: "").resolve(environment: Self.environment, uid: 1000)
        }
        #expect(flag?.message.hasPrefix("--remote is empty") == true, "\(String(describing: flag))")
        let off = try Self.configurationFile("remote = https://fleet.example/doc.json\n")
        #expect(
            try DaemonFlags(config: off, remote: "off").resolve(environment: Self.environment, uid: 1000).remote == nil
        )
    }

    @Test("a duration that rounds to no millisecond is refused, not taken as 0 (no limit)")
    func tinyDuration() throws {
        let path = try Self.configurationFile("idle-timeout = 0.0001\n")
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        }
        #expect(error?.message == "\(path):1: idle-timeout must be 0 or at least 0.001 seconds, not '0.0001'")
        let smallest = try DaemonFlags(config: try Self.configurationFile("idle-timeout = 0.001\n"))
            .resolve(environment: Self.environment, uid: 1000)
        #expect(smallest.idleTimeout == .milliseconds(1))
    }

    @Test("a configuration file that is a FIFO is refused without waiting for a writer, naming it")
    func fifo() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/viper-settingsd.conf"
            try #require(mkfifo(path, 0o644) == 0)
            // Opening a FIFO that has no writer blocks forever: bounded, so that a regression fails instead of hanging.
            let message = try await BlockingCall.result(within: 60) { () -> String in
                do {
                    _ = try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
                    return "resolved"
                } catch {
                    return "\(error)"
                }
            }
            #expect(
                message == "cannot read the configuration file \(path): it is a FIFO, not a regular file",
                "reading a FIFO as the configuration file did not end within 60 s"
            )
        }
    }

    @Test("every value of the file is used when no flag is given")
    func fileOnly() throws {
        let path = try Self.configurationFile(Self.fullFile)
        let configuration = try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        #expect(configuration.modulesDirectory == "/file/modules")
        #expect(configuration.stateDirectory == "/file/state")
        #expect(configuration.socketPath == "/file/socket")
        #expect(configuration.logLevel == .warning)
        #expect(configuration.remote == "https://file.example/doc.json")
        #expect(configuration.maximumMessageSize == 4096)
        #expect(configuration.remotePollInterval == .seconds(5))
    }

    @Test("each flag wins over the file")
    func flagsWin() throws {
        let path = try Self.configurationFile(Self.fullFile)
        let flags = DaemonFlags(
            config: path,
            socket: "/flag/socket",
            stateDirectory: "/flag/state",
            modulesDirectory: "/flag/modules",
            logLevel: "debug",
            remote: "etcd://127.0.0.1:2379/viper"
        )
        let configuration = try flags.resolve(environment: Self.environment, uid: 1000)
        #expect(configuration.modulesDirectory == "/flag/modules")
        #expect(configuration.stateDirectory == "/flag/state")
        #expect(configuration.socketPath == "/flag/socket")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.remote == "etcd://127.0.0.1:2379/viper")
        #expect(configuration.maximumMessageSize == 4096)
    }

    @Test("--remote off turns off a remote the file sets")
    func remoteOff() throws {
        let path = try Self.configurationFile(Self.fullFile)
        let configuration = try DaemonFlags(config: path, remote: "off").resolve(environment: Self.environment, uid: 0)
        #expect(configuration.remote == nil)
    }

    @Test("without flags or file the defaults follow the environment")
    func defaults() throws {
        let path = try Self.configurationFile("# nothing set\n")
        let configuration = try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        #expect(configuration.modulesDirectory == "/etc/viper-settings/modules")
        #expect(configuration.stateDirectory == "/home/u/.local/state/viper-settings")
        #expect(configuration.socketPath == "/run/user/1000/viper-settings/io.viper.settings")
        #expect(configuration.logLevel == .info)
        #expect(configuration.remote == nil)
        #expect(configuration.maximumMessageSize == 1 << 20)
    }

    @Test("relative paths in the file are taken relative to the file's directory")
    func relativePaths() throws {
        let path = try Self.configurationFile("modules-dir = modules # beside the file\n")
        let configuration = try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        let directory = String(path[..<path.lastIndex(of: "/")!])
        #expect(configuration.modulesDirectory == directory + "/modules")
    }

    @Test("a file named by a relative path gives absolute paths: they are shown to clients in other directories")
    func relativeFileAbsolutePaths() throws {
        let current = ConfigurationFile.currentDirectory
        let nested = try ConfigurationFile(text: "modules-dir = modules\n", path: "cfg/viper-settingsd.conf")
        #expect(try nested.pathValue("modules-dir") == "\(current)/cfg/modules")
        let here = try ConfigurationFile(text: "modules-dir = modules\n", path: "viper-settingsd.conf")
        #expect(try here.pathValue("modules-dir") == "\(current)/modules")
        let dotted = try ConfigurationFile(text: "modules-dir = m\n", path: "./cfg/viper-settingsd.conf")
        #expect(try dotted.pathValue("modules-dir") == "\(current)/cfg/m")
    }

    @Test(
        "out-of-range numbers are errors naming the key, never a crash",
        arguments: [
            "remote-poll-interval = inf", "remote-poll-interval = 1e300", "remote-poll-interval = nan",
            "remote-poll-interval = 0.5", "max-message-size = 10", "max-connections-per-uid = 0",
            "idle-timeout = 1e300", "idle-timeout = -1", "remote-timeout = inf", "sync-min-interval = nan",
            "max-connections = 0", "max-value-size = 99999999999999999999", "max-connections-per-uid = many",
            "idle-timeout = 0x10", "idle-timeout = 0x1p1", "remote-timeout = 1_0",
        ]
    )
    func outOfRange(line: String) throws {
        let path = try Self.configurationFile(line + "\n")
        let key = String(line.prefix { $0 != " " })
        #expect {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        } throws: { error in
            "\(error)".contains(key) && "\(error)".contains(path)
        }
    }

    @Test(
        "a remote URL the daemon cannot use is a configuration error naming the file and the key",
        arguments: [
            ("ftp://x/y", "'ftp://x/y' is not an https://, http:// or etcd:// URL"),
            ("etcd://127.0.0.1:9", "invalid etcd URL 'etcd://127.0.0.1:9': a key prefix is missing"),
            ("https://", "remote URL https:// has no host"),
            ("https://h/" + String(repeating: "a", count: 9000), "the URL is 9010 bytes long, more than 8192"),
        ]
    )
    func unusableRemoteInFile(remote: String, reason: String) throws {
        let path = try Self.configurationFile("remote = \(remote)\n")
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
        }
        #expect(error?.message.hasPrefix("\(path):1: remote: \(reason)") == true, "\(String(describing: error))")
        // Found even when --remote overrides it.
        let overridden = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path, remote: "off").resolve(environment: Self.environment, uid: 1000)
        }
        #expect(overridden?.message.hasPrefix("\(path):1: remote: \(reason)") == true)
    }

    @Test("a remote URL the daemon cannot use given with --remote names the flag, and wins over the file's")
    func unusableRemoteFlag() throws {
        let path = try Self.configurationFile(Self.fullFile)
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonFlags(config: path, remote: "ftp://x").resolve(environment: Self.environment, uid: 1000)
        }
        #expect(error?.message.hasPrefix("--remote: 'ftp://x' is not an https://") == true)
    }

    @Test("the default configuration file that cannot be read is an error with the reason, not silently skipped")
    func defaultFileUnreadable() async throws {
        try await TemporaryDirectory.with { directory in
            // CONFIGURATION_DIRECTORY is a file: the default file cannot be reached (open: Not a directory).
            let notDirectory = "\(directory)/file"
            let descriptor = creat(notDirectory, 0o644)
            try #require(descriptor >= 0)
            close(descriptor)
            var environment = Self.environment
            environment["CONFIGURATION_DIRECTORY"] = notDirectory
            let error = #expect(throws: ConfigurationError.self) {
                try DaemonFlags().resolve(environment: environment, uid: 1000)
            }
            #expect(
                error?.message
                    == "cannot read the configuration file \(notDirectory)/viper-settingsd.conf: open: Not a directory"
            )
            // A default file that is not there is no error: the defaults apply.
            environment["CONFIGURATION_DIRECTORY"] = directory
            #expect(try DaemonFlags().resolve(environment: environment, uid: 1000).logLevel == .info)
        }
    }

    @Test("of systemd's lists of directories the first is used; a variable set to an empty value counts as unset")
    func directoryLists() throws {
        let path = try Self.configurationFile("log-level = warning\n")
        let directory = String(path[..<path.lastIndex(of: "/")!])
        var environment = Self.environment
        environment["CONFIGURATION_DIRECTORY"] = "\(directory):/etc/ca-files"
        environment["STATE_DIRECTORY"] = "/var/lib/a:/var/lib/b"
        environment["RUNTIME_DIRECTORY"] = "/run/a:/run/b"
        let listed = try DaemonFlags().resolve(environment: environment, uid: 0)
        #expect(listed.logLevel == .warning, "the file in the first configuration directory is read")
        #expect(listed.stateDirectory == "/var/lib/a")
        #expect(listed.socketPath == "/run/a/io.viper.settings")

        let empty = ["CONFIGURATION_DIRECTORY": "", "STATE_DIRECTORY": "", "RUNTIME_DIRECTORY": "", "HOME": "/home/u"]
        let unset = try DaemonFlags(config: path).resolve(environment: empty, uid: 0)
        #expect(unset.stateDirectory == "/var/lib/viper-settings")
        #expect(unset.socketPath == "/run/viper-settings/io.viper.settings")
        let user = try DaemonFlags(config: path).resolve(
            environment: ["HOME": "/home/u", "XDG_STATE_HOME": "", "XDG_RUNTIME_DIR": ""],
            uid: 1000
        )
        #expect(user.stateDirectory == "/home/u/.local/state/viper-settings")
        #expect(user.socketPath == "/run/viper-settings/io.viper.settings")
    }

    @Test("a value holding a control character and a file that is not UTF-8 are refused, naming the file and line")
    func controlCharactersAndBytes() throws {
        for (bytes, expected) in [
            (
                Array("log-level = warning\nmodules-dir = mods\0\n".utf8),
                ":2: 'modules-dir' holds a control character (U+0000)"
            ),
            (Array("socket = /run/a\u{0B}b\n".utf8), ":1: 'socket' holds a control character (U+000B)"),
            (
                Array("log-level = warning\r\nlog".utf8) + [0xFF] + Array(" = x\n".utf8),
                ":2: not UTF-8 text (byte 25 of the file)"
            ),
        ] {
            let path = try Self.configurationFile("")
            let file = try #require(fopen(path, "we"))
            #expect(fwrite(bytes, 1, bytes.count, file) == bytes.count)
            fclose(file)
            let error = #expect(throws: ConfigurationError.self) {
                try DaemonFlags(config: path).resolve(environment: Self.environment, uid: 1000)
            }
            #expect(error?.message.hasPrefix(path + expected) == true, "\(String(describing: error))")
        }
    }
}
