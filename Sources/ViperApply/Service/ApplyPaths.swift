import ViperPOSIX

/// Where viper-settings-apply reads its targets, reaches the settings daemon, keeps its state and serves its control
/// socket: each flag, else the environment, else the default; `--help` shows these defaults.
public struct ApplyPaths: Hashable, Sendable {
    /// `--targets-dir`'s default.
    public static let defaultTargetsDirectory = "/etc/viper-settings/apply.d"
    /// The variable that names the daemon's socket when `--socket` is not given, as for settingsctl.
    public static let daemonSocketVariable = "VIPER_SETTINGS_SOCKET"
    /// `--socket`'s default without the variable.
    public static let defaultDaemonSocket = "/run/viper-settings/io.viper.settings"
    /// `--state-dir`'s default without `$STATE_DIRECTORY` (which systemd sets from the unit's `StateDirectory=`).
    public static let defaultStateDirectory = "/var/lib/viper-settings-apply"
    /// The control socket's directory without `$RUNTIME_DIRECTORY` (the unit's `RuntimeDirectory=`).
    public static let defaultRuntimeDirectory = "/run/viper-settings-apply"
    /// The control socket's name in that directory.
    public static let controlSocketName = "io.viper.settings.Apply"

    /// Where target files are read.
    public var targetsDirectory: String
    /// The settings daemon's socket.
    public var daemonSocket: String
    /// Where state.json and the dry run's scratch files are kept.
    public var stateDirectory: String
    /// Where io.viper.settings.Apply is served.
    public var controlSocket: String

    /// The paths the flags give, the others from `environment` or the defaults. A variable set to an empty value
    /// counts as unset; `$STATE_DIRECTORY` and `$RUNTIME_DIRECTORY` may list several directories (`a:b`), as systemd
    /// sets them: the first is used.
    public init(
        targetsDirectory: String? = nil,
        daemonSocket: String? = nil,
        stateDirectory: String? = nil,
        controlSocket: String? = nil,
        environment: [String: String]
    ) {
        let firstDirectory = { (name: String) in EnvironmentDirectory.first(name, in: environment) }
        self.targetsDirectory = targetsDirectory ?? Self.defaultTargetsDirectory
        self.daemonSocket =
            daemonSocket ?? environment[Self.daemonSocketVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.defaultDaemonSocket
        self.stateDirectory = stateDirectory ?? firstDirectory("STATE_DIRECTORY") ?? Self.defaultStateDirectory
        self.controlSocket =
            controlSocket
            ?? "\(firstDirectory("RUNTIME_DIRECTORY") ?? Self.defaultRuntimeDirectory)/\(Self.controlSocketName)"
    }
}
