import Foundation
import Logging

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
        let file = try self.configurationFile(environment: environment)
        let home = environment["HOME"] ?? "/root"
        let defaultState =
            environment["STATE_DIRECTORY"].map { String($0.split(separator: ":").first ?? "") }
            ?? (uid == 0
                ? "/var/lib/viper-settings"
                : "\(environment["XDG_STATE_HOME"] ?? "\(home)/.local/state")/viper-settings")
        let defaultSocket =
            environment["RUNTIME_DIRECTORY"].map { "\(String($0.split(separator: ":").first ?? ""))/io.viper.settings" }
            ?? (uid == 0 || environment["XDG_RUNTIME_DIR"] == nil
                ? "/run/viper-settings/io.viper.settings"
                : "\(environment["XDG_RUNTIME_DIR"]!)/viper-settings/io.viper.settings")
        var configuration = DaemonConfiguration(
            modulesDirectory: self.modulesDirectory ?? file?.pathValue("modules-dir") ?? "/etc/viper-settings/modules",
            stateDirectory: self.stateDirectory ?? file?.pathValue("state-dir") ?? defaultState,
            socketPath: self.socket ?? file?.pathValue("socket") ?? defaultSocket
        )
        if let text = self.logLevel ?? file?.values["log-level"] {
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError(
                    "log level '\(text)' is not one of trace, debug, info, notice, warning, error, critical"
                )
            }
            configuration.logLevel = level
        }
        if let text = file?.values["max-message-size"] {
            guard let value = Int(text), value >= 1024 else {
                throw ConfigurationError("\(file!.path): max-message-size must be a number of bytes >= 1024")
            }
            configuration.maximumMessageSize = value
        }
        if let text = file?.values["max-connections-per-uid"] {
            guard let value = Int(text), value >= 1 else {
                throw ConfigurationError("\(file!.path): max-connections-per-uid must be a number >= 1")
            }
            configuration.maximumConnectionsPerUID = value
        }
        if let text = file?.values["max-connections"] {
            guard let value = Int(text), value >= 1 else {
                throw ConfigurationError("\(file!.path): max-connections must be a number >= 1")
            }
            configuration.maximumConnections = value
        }
        if let text = file?.values["idle-timeout"] {
            guard let seconds = Double(text), seconds >= 0 else {
                throw ConfigurationError("\(file!.path): idle-timeout must be a number of seconds >= 0 (0: no limit)")
            }
            configuration.idleTimeout = seconds == 0 ? nil : .milliseconds(Int64(seconds * 1000))
        }
        if let text = file?.values["remote-timeout"] {
            guard let seconds = Double(text), seconds >= 1 else {
                throw ConfigurationError("\(file!.path): remote-timeout must be a number of seconds >= 1")
            }
            configuration.remoteTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let text = file?.values["sync-min-interval"] {
            guard let seconds = Double(text), seconds >= 0 else {
                throw ConfigurationError("\(file!.path): sync-min-interval must be a number of seconds >= 0")
            }
            configuration.syncMinimumInterval = .milliseconds(Int64(seconds * 1000))
        }
        if let text = file?.values["max-value-size"] {
            guard let value = Int(text), value >= 1 else {
                throw ConfigurationError("\(file!.path): max-value-size must be a number of bytes >= 1")
            }
            configuration.maximumValueSize = value
        }
        if let remote = self.remote ?? file?.values["remote"], !remote.isEmpty, remote != "off" {
            configuration.remote = remote
        }
        if let text = file?.values["remote-poll-interval"] {
            // At most a year: larger numbers, `inf` and `nan` would overflow the milliseconds below.
            guard let seconds = Double(text), seconds >= 1, seconds <= 31_536_000 else {
                throw ConfigurationError(
                    "\(file!.path): remote-poll-interval must be a number of seconds from 1 to 31536000 (a year)"
                )
            }
            configuration.remotePollInterval = .milliseconds(Int64(seconds * 1000))
        }
        configuration.remoteTokenFile = file?.pathValue("remote-token-file")
        configuration.remoteCAFile = file?.pathValue("remote-ca-file")
        return configuration
    }

    private func configurationFile(environment: [String: String]) throws -> ConfigurationFile? {
        let path: String
        if let explicit = self.config {
            path = explicit
        } else {
            let directory = environment["CONFIGURATION_DIRECTORY"] ?? "/etc/viper-settings"
            path = "\(directory)/viper-settingsd.conf"
            guard FileManager.default.fileExists(atPath: path) else { return nil }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read the configuration file \(path)")
        }
        return try ConfigurationFile(text: String(decoding: data, as: UTF8.self), path: path)
    }
}
