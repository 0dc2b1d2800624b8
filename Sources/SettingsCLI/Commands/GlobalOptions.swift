package import ArgumentParser
import SettingsAPI
package import SettingsCLICore

/// The options every command takes: `--json` and `--socket PATH`.
package struct GlobalOptions: ParsableArguments {
    @Flag(help: "Print the reply (of the daemon, or of the applier for apply) as JSON instead of text.")
    package var json = false

    @Option(
        help: ArgumentHelp(
            "The daemon's socket (default: $\(SocketLocator.environmentVariable), else \(SocketLocator.systemPath)"
                + " if it exists, else $XDG_RUNTIME_DIR/\(SocketLocator.runtimeDirectorySuffix)).",
            valueName: "path"
        ),
        completion: .file()
    )
    package var socket: String?

    package init() {}

    package func validate() throws {
        if let socket = self.socket, socket.isEmpty {
            throw ValidationError("--socket needs a path")
        }
    }

    /// A client for the socket these options and the environment name.
    package func client(locator: SocketLocator = .live) -> VarlinkClient {
        VarlinkClient(location: locator.locate(option: self.socket))
    }
}
