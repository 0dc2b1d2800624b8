/// The methods of `io.viper.settings`, with their fully qualified Varlink names.
public enum SettingsMethod: String, Sendable, CaseIterable {
    case listModules = "ListModules"
    case showModule = "ShowModule"
    case get = "Get"
    case set = "Set"
    case reset = "Reset"
    case explain = "Explain"
    case status = "Status"
    case sync = "Sync"
    case watch = "Watch"
    case dump = "Dump"
    case load = "Load"

    /// The interface that declares these methods and their errors.
    public static let interface = "io.viper.settings"

    /// The fully qualified name, e.g. `io.viper.settings.Get`.
    public var qualifiedName: String { "\(Self.interface).\(self.rawValue)" }

    /// The IDL text of `io.viper.settings`, as served by `GetInterfaceDescription`.
    public static let interfaceDescription = String(
        decoding: PackageResources.io_viper_settings_varlink,
        as: UTF8.self
    )
}
