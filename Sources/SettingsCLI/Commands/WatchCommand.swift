package import ArgumentParser
import SettingsCLICore

/// `settingsctl watch [KEY|MODULE...]`: the current values, then every change, until interrupted.
package struct WatchCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the current values of keys or modules, then every change, until interrupted.",
        discussion: """
            First prints each watched key with its value and layer, then a line when changes follow, then one line \
            per change of an effective value, whatever caused it (set, reset, load, the fleet, a schema reload): \
            the key, old -> new ((none) for no value: a key added or removed), the layer, who (uid and pid of the \
            client, or the remote revision), the module's revision, and a cursor. Each line is flushed at once. Without a key or module, every module is watched.

            --after CURSOR resumes after the event that printed CURSOR: exactly the changes that followed it, none \
            missed or repeated, also after the daemon restarted. When the daemon no longer keeps the history that \
            far back (it keeps the changes of the last 256 revisions per module, at most 4096 changes and 4 MiB of \
            values), or the watcher \
            read too slowly, a resync line is \
            printed and the current values follow. CURSOR is taken only as watch printed it (network:42, \
            display:7,network:42.1); anything else (network:042, network:+42, a blank) is a usage error (exit 2). \
            A cursor the daemon's history shows it never printed (a position inside a revision past its last \
            change) starts over with a resync, as one of another daemon does.

            When the daemon goes away (restart, stop), watch says so on standard error, reconnects by itself and \
            resumes after the cursor of the last change or ready line it printed; lost before ready, it gets the \
            current values again and prints them again (some twice, none skipped). Stop it with Ctrl-C.

            Examples:
              settingsctl watch network display.output.scale
              settingsctl --json watch network | jq -c 'select(.event == "change")'
              settingsctl watch --after network:42 network
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Option(help: ArgumentHelp("Resume after the event that printed this cursor.", valueName: "cursor"))
    package var after: String?

    @Argument(
        help: "Keys (network.proxy.port) or modules (network) to watch; every module when none is given.",
        completion: .daemon(.keyOrModule)
    )
    package var targets: [String] = []

    package init() {}

    package func validate() throws {
        if let after = self.after, after.isEmpty { throw ValidationError("--after needs a cursor") }
    }

    package func run() throws {
        let session = WatchSession(
            location: SocketLocator.live.locate(option: self.global.socket),
            targets: self.targets,
            after: self.after,
            json: self.global.json,
            style: .standardOutput
        )
        try session.run()
    }
}
