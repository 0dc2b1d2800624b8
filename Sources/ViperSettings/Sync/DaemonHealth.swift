/// What is wrong with the daemon now, as facts, for `status`: the `STATUS=` line systemd shows says the same, but an
/// admin without systemd (or over `settingsctl`) sees it here.
public struct DaemonHealth: Sendable, Hashable {
    /// The state files that cannot be used, each as its storage error's message (`open …: Permission denied`): the
    /// modules concerned serve what can be read and refuse writes.
    public var unusableStateFiles: [String]
    /// The modules whose last write failed (a full disk, an I/O error), each as its storage error's message: each
    /// write tries again, and this ends with the first that succeeds.
    public var failingWrites: [String]
    /// The schema files refused at the last start or reload, each with its path and why.
    public var rejectedSchemaFiles: [SchemaError]
    /// The error the last reload found in the configuration file, naming the file (the previous configuration is in
    /// force); `nil` when it was reloaded.
    public var configurationReloadError: String?
    /// Whether the last reload could not read the modules directory (the previous schemas are in force).
    public var schemasNotReloaded: Bool
    /// The modules directory, when the last start or reload found no schema file (`*.json`) in it: with
    /// ``schemasNotReloaded``, the reload was refused for it and the previous schemas are in force; else no module is
    /// served.
    public var modulesDirectoryWithoutSchemas: String?

    /// A daemon with nothing wrong.
    public static let healthy = DaemonHealth()

    public init(
        unusableStateFiles: [String] = [],
        failingWrites: [String] = [],
        rejectedSchemaFiles: [SchemaError] = [],
        configurationReloadError: String? = nil,
        schemasNotReloaded: Bool = false,
        modulesDirectoryWithoutSchemas: String? = nil
    ) {
        self.unusableStateFiles = unusableStateFiles
        self.failingWrites = failingWrites
        self.rejectedSchemaFiles = rejectedSchemaFiles
        self.configurationReloadError = configurationReloadError
        self.schemasNotReloaded = schemasNotReloaded
        self.modulesDirectoryWithoutSchemas = modulesDirectoryWithoutSchemas
    }
}
