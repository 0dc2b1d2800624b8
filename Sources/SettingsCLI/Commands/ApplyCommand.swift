package import ArgumentParser
import SettingsAPI
package import SettingsCLICore

/// `settingsctl apply [status] [--dry-run] [--apply-socket PATH]`: what viper-settings-apply did to the system's
/// files, or would do now.
package struct ApplyCommand: ParsableCommand {
    /// What `apply` shows when no `--dry-run` is given: there is one view, `status`, also the default.
    package enum View: String, ExpressibleByArgument, CaseIterable, Sendable {
        case status
    }

    package static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Show what the applier (viper-settings-apply) did to the system's files, or would do now.",
        discussion: """
            The applier renders system configuration files (its targets) from settings, checks them, replaces \
            them and reloads their services. It serves its own socket, read-only: apply asks it, changes nothing.

            apply status (or apply) prints whether the applier follows viper-settingsd and the cursor of the last \
            change every target has finished applying, then each target: its destination file and the record of its last write or \
            failure (written, check-failed, reload-failed or failed), when, the module revisions it was rendered \
            from, and for a failure the error and the standard error of the check or reload. An apply that finds \
            the file already as rendered leaves that record as it is: unchanged is shown only for a target never \
            written, or once a failure is over. Then the target files the applier refused, with the reason, and \
            those it applies with something to fix.

            apply --dry-run renders every target with the current values and runs its check on a scratch copy: \
            it prints, for each, the result (unchanged, would-write, check-failed, failed), the check's status \
            and standard error, what would change besides the bytes (mode 0666 -> 0600, owner root -> nobody), \
            and the unified diff of the file that would be written. A target that reads a module viper-settingsd \
            does not serve fails, not rendered, as it does when applied. Nothing is written, nothing reloaded. \
            The applier runs the checks at the same time and kills one after 60 s: apply --dry-run waits up to \
            90 s for its answer. As it runs the targets' checks, the applier serves it to root only: anyone else \
            gets exit status 7 (apply status is open to everyone).

            Exit status:
              0   no target failed and no target file was refused.
              3   the applier cannot be reached, is not ready yet, or did not
                  answer in time; apply status also exits with 3, after its
                  output, when the applier does not follow viper-settingsd
                  (changes do not reach the files now).
              7   apply --dry-run by anyone but root: permission denied.
              10  after the output: a target failed (its last apply, or in a dry
                  run its check or its rendering) or a target file was refused.

            The other statuses are those of every command (settingsctl --help).

            The applier's socket: --apply-socket PATH, else $\(SocketLocator.applyEnvironmentVariable), else \
            \(SocketLocator.applySystemPath). (--socket names the settings daemon's socket; apply does not use it.)

            Examples:
              settingsctl apply
              settingsctl apply --dry-run
              settingsctl --json apply status
            """
    )

    /// `--json`; its `--socket` names the settings daemon's socket, which apply does not use.
    @OptionGroup package var global: GlobalOptions

    @Option(
        name: .customLong("apply-socket"),
        help: ArgumentHelp(
            "The applier's socket (default: $\(SocketLocator.applyEnvironmentVariable), else "
                + "\(SocketLocator.applySystemPath)).",
            valueName: "path"
        ),
        completion: .file()
    )
    package var applySocket: String?

    @Flag(
        name: .customLong("dry-run"),
        help: "Print what applying every target now would write; change nothing (root only: it runs the checks)."
    )
    package var dryRun = false

    @Argument(help: "status (the default): the targets and the results of their last apply.")
    package var view: View?

    package init() {}

    package func validate() throws {
        if let socket = self.applySocket, socket.isEmpty {
            throw ValidationError("--apply-socket needs a path")
        }
        if self.dryRun, let view = self.view {
            throw ValidationError("apply \(view.rawValue) and --dry-run exclude each other: give one")
        }
    }

    /// What the command does.
    package var action: ApplyAction { self.dryRun ? .dryRun : .status }

    /// A client for the applier's socket these options and the environment name.
    package func client(locator: SocketLocator = .live) -> VarlinkClient {
        VarlinkClient(location: locator.locateApplier(option: self.applySocket), peer: .applier)
    }

    /// Calls the applier through `client` and returns what to print; `now` dates the outcomes (the system clock
    /// when `nil`).
    package func output(using client: VarlinkClient, style: TextStyle, now: Double? = nil) throws(CLIFailure) -> String
    {
        try self.action.output(using: client, style: style, json: self.global.json, now: now)
    }

    package func run() throws {
        try StandardStream.output.writeLine(try self.output(using: self.client(), style: .standardOutput))
    }
}
