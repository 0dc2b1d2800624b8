/// Finds the daemon's socket: `--socket PATH`, else `$VIPER_SETTINGS_SOCKET`, else the system socket when
/// it exists, else the per-user socket in `$XDG_RUNTIME_DIR` (the daemon's default when not run as root).
///
/// The applier's socket (`settingsctl apply`): `--apply-socket PATH`, else `$VIPER_SETTINGS_APPLY_SOCKET`, else
/// its system socket.
///
/// The environment and the file system are injected, so that the order can be tested.
package struct SocketLocator: Sendable {
    /// Where a socket path came from, for messages.
    package enum Origin: Sendable, Hashable {
        case option
        case environment
        case system
        case runtimeDirectory
        /// The applier's socket, given with `--apply-socket`.
        case applyOption
        /// The applier's socket, from `$VIPER_SETTINGS_APPLY_SOCKET`.
        case applyEnvironment
        /// The applier's system socket.
        case applySystem
    }

    /// A socket path and where it came from.
    package struct Location: Sendable, Hashable {
        package var path: String
        package var origin: Origin

        package init(path: String, origin: Origin) {
            self.path = path
            self.origin = origin
        }

        /// Where the path came from, in words: "given with --socket".
        package var explanation: String {
            switch self.origin {
            case .option: "given with --socket"
            case .environment: "from \(SocketLocator.environmentVariable)"
            case .system: "the system socket"
            case .runtimeDirectory: "the per-user socket in XDG_RUNTIME_DIR"
            case .applyOption: "given with --apply-socket"
            case .applyEnvironment: "from \(SocketLocator.applyEnvironmentVariable)"
            case .applySystem: "the applier's system socket"
            }
        }
    }

    /// The socket of the daemon run by systemd.
    package static let systemPath = "/run/viper-settings/io.viper.settings"
    /// The environment variable that names another socket.
    package static let environmentVariable = "VIPER_SETTINGS_SOCKET"
    /// The socket's path below `$XDG_RUNTIME_DIR`.
    package static let runtimeDirectorySuffix = "viper-settings/io.viper.settings"

    /// The socket of viper-settings-apply, the applier.
    package static let applySystemPath = "/run/viper-settings-apply/io.viper.settings.Apply"
    /// The environment variable that names another socket of the applier.
    package static let applyEnvironmentVariable = "VIPER_SETTINGS_APPLY_SOCKET"

    private let environment: @Sendable (String) -> String?
    private let fileExists: @Sendable (String) -> Bool

    /// A locator that reads `environment` and asks `fileExists` whether the system socket is there.
    package init(
        environment: @escaping @Sendable (String) -> String?,
        fileExists: @escaping @Sendable (String) -> Bool
    ) {
        self.environment = environment
        self.fileExists = fileExists
    }

    /// A locator over this process's environment and file system.
    package static var live: SocketLocator {
        SocketLocator(environment: ProcessEnvironment.value, fileExists: ProcessEnvironment.fileExists)
    }

    /// The socket to connect to, given the `--socket` option's value if any.
    package func locate(option: String?) -> Location {
        if let path = option, !path.isEmpty {
            return Location(path: path, origin: .option)
        }
        if let path = self.environment(Self.environmentVariable), !path.isEmpty {
            return Location(path: path, origin: .environment)
        }
        if self.fileExists(Self.systemPath) {
            return Location(path: Self.systemPath, origin: .system)
        }
        if let directory = self.environment("XDG_RUNTIME_DIR"), !directory.isEmpty {
            let separator = directory.hasSuffix("/") ? "" : "/"
            return Location(path: directory + separator + Self.runtimeDirectorySuffix, origin: .runtimeDirectory)
        }
        return Location(path: Self.systemPath, origin: .system)
    }

    /// The applier's socket, given the `--apply-socket` option's value if any.
    package func locateApplier(option: String?) -> Location {
        if let path = option, !path.isEmpty {
            return Location(path: path, origin: .applyOption)
        }
        if let path = self.environment(Self.applyEnvironmentVariable), !path.isEmpty {
            return Location(path: path, origin: .applyEnvironment)
        }
        return Location(path: Self.applySystemPath, origin: .applySystem)
    }
}
