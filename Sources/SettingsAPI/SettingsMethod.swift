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

    /// The parameters the method takes, as the IDL declares them: a call with any other is refused with
    /// `org.varlink.service.InvalidParameter` naming it (a misspelt `dryRun` must not make a `Load` write).
    public var parameterNames: Set<String> {
        switch self {
        case .listModules, .status, .sync: Self.noneParameters
        case .showModule: Self.moduleParameters
        case .get, .reset, .explain: Self.keyParameters
        case .set: Self.setParameters
        case .watch: Self.watchParameters
        case .dump: Self.dumpParameters
        case .load: Self.loadParameters
        }
    }

    private static let noneParameters: Set<String> = []
    private static let moduleParameters: Set<String> = ["module"]
    private static let keyParameters: Set<String> = ["key"]
    private static let setParameters: Set<String> = ["key", "value", "text"]
    private static let watchParameters: Set<String> = ["keys", "after"]
    private static let dumpParameters: Set<String> = ["modules", "effective"]
    private static let loadParameters: Set<String> = ["modules", "replace", "dryRun", "ifRevision"]

    /// The fully qualified name, e.g. `io.viper.settings.Get`.
    public var qualifiedName: String { "\(Self.interface).\(self.rawValue)" }

    /// The IDL text of `io.viper.settings`, as served by `GetInterfaceDescription`.
    public static let interfaceDescription = String(
        decoding: PackageResources.io_viper_settings_varlink,
        as: UTF8.self
    )
}
