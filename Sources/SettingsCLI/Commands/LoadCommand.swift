package import ArgumentParser
package import SettingsCLICore

/// `settingsctl load [--dry-run] [--replace] [--if-revision MODULE=REV]... FILE`: the values of a dump, each checked
/// before any is set.
package struct LoadCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Set the values of a file written by dump, after checking all of them.",
        discussion: """
            Reads FILE (- for standard input), a dump: {"modules": {MODULE: {"values": {SECTION.ITEM: VALUE}}}}; \
            other fields are ignored. Every value is checked first: a module or key the schemas do not have, a \
            value that does not fit its key, a key the fleet locks, a module you may not write: any of them and \
            nothing is loaded (each is listed, a value as JSON: "80" is a string, 80 a number; the exit status is \
            that of the first: 4, 5, 6 or 7). A module whose state files the daemon knows it cannot write refuses \
            the load too, before anything is written (exit 1). Then each module is stored on its own, in one \
            durable write, and its revision moves on once; a module that still cannot be stored (a full disk) \
            stops the load, and the error names the modules before it that were loaded. Values equal to the local \
            ones change nothing; local values absent from the file stay, unless --replace.

            Prints, per module, each key whose value changes: key: old -> new (layer).

            --dry-run applies nothing and prints what would change and every value that cannot be loaded, with \
            its reason; anyone may run it (it does not check that you may write). It exits with the status of the \
            first problem (4, 5 or 6) if any, 8 for --if-revision, 1 when a module's state files cannot be written.

            --if-revision MODULE=N (repeatable) refuses the load, with exit status 8, unless MODULE is still at \
            revision N (as dump printed it): a compare-and-set against overwriting a change made since.

            Examples:
              settingsctl load --dry-run network.json
              settingsctl load network.json
              settingsctl load --if-revision network=42 network.json
              ssh host1 settingsctl dump network | settingsctl load -
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("dry-run"), help: "Print what would change and what cannot be loaded; change nothing.")
    package var dryRun = false

    @Flag(help: "Also remove the local values of the file's modules that the file does not have.")
    package var replace = false

    @Option(
        name: .customLong("if-revision"),
        help: ArgumentHelp("Load only if MODULE is still at revision N (exit 8 otherwise).", valueName: "module=n")
    )
    package var ifRevision: [String] = []

    @Argument(
        help: "The file to load, as dump writes it; - for standard input.",
        completion: .file(extensions: ["json"])
    )
    package var file: String

    package init() {}

    package func validate() throws {
        _ = try self.revisions()
    }

    /// `--if-revision` by module; a malformed one is a usage error naming it.
    package func revisions() throws -> [String: Int64] {
        var revisions: [String: Int64] = [:]
        for entry in self.ifRevision {
            let parts = entry.split(separator: "=", maxSplits: 1)
            // Digits only, as the daemon prints a revision: no sign, no leading zero (`02` is not read as 2).
            guard parts.count == 2, !parts[0].isEmpty, parts[1].allSatisfy({ ("0"..."9").contains($0) }),
                parts[1] == "0" || !parts[1].hasPrefix("0"), let revision = Int64(parts[1])
            else {
                throw ValidationError(
                    "--if-revision \(TableFormatter.printable(entry)): expected MODULE=REVISION, the revision in digits as dump prints it (no sign, no leading zero), e.g. network=42"
                )
            }
            guard revisions[String(parts[0])] == nil else {
                throw ValidationError("--if-revision names \(TableFormatter.printable(String(parts[0]))) twice")
            }
            revisions[String(parts[0])] = revision
        }
        return revisions
    }

    /// What the command does.
    package var action: CommandAction {
        .load(file: self.file, dryRun: self.dryRun, replace: self.replace, ifRevision: (try? self.revisions()) ?? [:])
    }
}
