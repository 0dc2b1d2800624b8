import Glibc
import Logging
import ViperPOSIX

/// The daemon's command-line flags; combined with the configuration file, the environment and the defaults by
/// ``resolve(environment:uid:)``.
struct DaemonFlags: Sendable {
    var config: String?
    var socket: String?
    var stateDirectory: String?
    var modulesDirectory: String?
    var logLevel: String?
    var remote: String?

    /// Combines flags, the configuration file, the environment and the defaults; flags win.
    func resolve(environment: [String: String], uid: uid_t) throws -> DaemonConfiguration {
        for (flag, value) in [
            ("--config", self.config), ("--socket", self.socket), ("--state-dir", self.stateDirectory),
            ("--modules-dir", self.modulesDirectory),
        ] where value?.isEmpty == true {
            throw ConfigurationError("\(flag): the path is empty")
        }
        let file = try self.configurationFile(environment: environment)
        let home = EnvironmentDirectory.single("HOME", in: environment) ?? "/root"
        // A variable set to an empty value counts as unset (systemd's and XDG's rule).
        let defaultState =
            EnvironmentDirectory.first("STATE_DIRECTORY", in: environment)
            ?? (uid == 0
                ? "/var/lib/viper-settings"
                : "\(EnvironmentDirectory.single("XDG_STATE_HOME", in: environment) ?? "\(home)/.local/state")/viper-settings")
        let runtimeDirectory = EnvironmentDirectory.single("XDG_RUNTIME_DIR", in: environment)
        let defaultSocket =
            EnvironmentDirectory.first("RUNTIME_DIRECTORY", in: environment).map { "\($0)/io.viper.settings" }
            ?? (uid == 0 || runtimeDirectory == nil
                ? "/run/viper-settings/io.viper.settings"
                : "\(runtimeDirectory!)/viper-settings/io.viper.settings")
        let modulesDirectory = try file?.pathValue("modules-dir")
        let stateDirectory = try file?.pathValue("state-dir")
        let socket = try file?.pathValue("socket")
        var configuration = DaemonConfiguration(
            modulesDirectory: self.modulesDirectory ?? modulesDirectory ?? "/etc/viper-settings/modules",
            stateDirectory: self.stateDirectory ?? stateDirectory ?? defaultState,
            socketPath: self.socket ?? socket ?? defaultSocket
        )
        // The file's level is checked even when the flag overrides it: a mistake in the file is found now, not at
        // the first start without the flag.
        for (origin, text) in [
            ("\(file?.place("log-level") ?? ""): log-level", file?.values["log-level"]), ("--log-level", self.logLevel),
        ] {
            guard let text else { continue }
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError(
                    "\(origin): log level '\(text)' is not one of trace, debug, info, notice, warning, error, critical"
                )
            }
            configuration.logLevel = level
        }
        if let file {
            let year = 31_536_000.0
            // Every number is bounded: a huge one, `inf` or `nan` would overflow when converted below.
            if let value = try file.integer("max-message-size", in: 1024...(1 << 30), unit: "bytes") {
                configuration.maximumMessageSize = value
            }
            if let value = try file.integer("max-connections-per-uid", in: 1...1_000_000) {
                configuration.maximumConnectionsPerUID = value
            }
            if let value = try file.integer("max-connections", in: 1...1_000_000) {
                configuration.maximumConnections = value
            }
            if let value = try file.seconds("idle-timeout", in: 0...year, note: " (0: no limit)") {
                configuration.idleTimeout = value == .zero ? nil : value
            }
            if let value = try file.seconds("remote-timeout", in: 1...year) { configuration.remoteTimeout = value }
            if let value = try file.seconds("sync-min-interval", in: 0...year) {
                configuration.syncMinimumInterval = value
            }
            if let value = try file.integer("max-value-size", in: 1...(1 << 30), unit: "bytes") {
                configuration.maximumValueSize = value
            }
            if let value = try file.seconds("remote-poll-interval", in: 1...year) {
                configuration.remotePollInterval = value
            }
        }
        // As the log level: the file's value is checked even when the flag overrides it.
        for (origin, remote) in [
            ("\(file?.place("remote") ?? ""): remote", file?.values["remote"]), ("--remote", self.remote),
        ] {
            guard let remote else { continue }
            // Empty is not off: a template that left the URL out would silently drop the fleet's mandatory values.
            guard !remote.isEmpty else {
                throw ConfigurationError("\(origin) is empty: give the fleet's URL, or off to turn remote sync off")
            }
            guard remote != "off" else {
                configuration.remote = nil
                continue
            }
            do {
                try RemoteSourceFactory.check(remote)
            } catch {
                throw ConfigurationError("\(origin): \(error)")
            }
            configuration.remote = remote
        }
        configuration.remoteTokenFile = try file?.pathValue("remote-token-file")
        configuration.remoteCAFile = try file?.pathValue("remote-ca-file")
        return configuration
    }

    /// The configuration file: `--config`, which must be there, else the default one when it is there. A file that
    /// is there but cannot be read is an error naming it and the reason, whichever it is: a directory on the way that
    /// cannot be searched does not make the default file silently absent.
    private func configurationFile(environment: [String: String]) throws -> ConfigurationFile? {
        let path =
            self.config
            ?? "\(EnvironmentDirectory.first("CONFIGURATION_DIRECTORY", in: environment) ?? "/etc/viper-settings")/viper-settingsd.conf"
        // Read without waiting on a FIFO, which would block the start (or a reload) with no way to stop it.
        let data: [UInt8]?
        do {
            data = try RegularFile.contents(of: path)
        } catch {
            throw ConfigurationError("cannot read the configuration file \(path): \(error)")
        }
        guard let data else {
            guard self.config == nil else {
                throw ConfigurationError(
                    "cannot read the configuration file \(path): open: \(SystemErrorText.describe(ENOENT))"
                )
            }
            return nil
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let offset = Self.firstInvalidUTF8(data)
            let line = data[..<offset].count { $0 == UInt8(ascii: "\n") } + 1
            throw ConfigurationError("\(path):\(line): not UTF-8 text (byte \(offset + 1) of the file)")
        }
        return try ConfigurationFile(text: text, path: path)
    }

    /// The offset of the first byte of `bytes` that does not start a valid UTF-8 character.
    private static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }
}
