package import SettingsAPI

/// A failure that ends a `settingsctl` run: a message for people and the exit status for scripts.
///
/// Every way a command can fail (the daemon cannot be reached, it answered with a declared error, its
/// reply could not be read) becomes one of these, so that ``SettingsCtl`` prints `settingsctl: MESSAGE`
/// on standard error and exits with ``status``.
package struct CLIFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exit status, one of the documented ``ExitStatus`` values.
    package var status: ExitStatus
    /// What went wrong, in words a user can act on; no prefix, no trailing newline.
    package var message: String
    /// The Varlink error the daemon answered with, when the failure is one.
    package var errorName: String?
    /// The parameters of ``errorName``.
    package var parameters: JSONValue?
    /// What the command printed before it failed (`sync` and `status` print the sync state, then fail).
    package var output: String?

    package init(_ status: ExitStatus, _ message: String, output: String? = nil) {
        self.status = status
        self.message = message
        self.output = output
    }

    /// The failure as one JSON object, for `--json`: `{"error": NAME, "parameters": {…}, "message": …,
    /// "exitStatus": N}` (`error` and `parameters` only for an error the daemon answered with).
    package var jsonReport: String {
        var object: [String: JSONValue] = [
            "message": .string(self.message), "exitStatus": .int(Int64(self.status.rawValue)),
        ]
        if let name = self.errorName {
            object["error"] = .string(name)
            object["parameters"] = self.parameters ?? [:]
        }
        return JSONValue.object(object).serialized()
    }

    /// Writes what the command printed to `output` (standard output), then the failure to `errors` (standard
    /// error): as JSON with `json`, else as `settingsctl: MESSAGE`. Returns the status to exit with.
    ///
    /// When what the command printed cannot be written (a full disk, a closed descriptor), that failure is the one
    /// reported, `cannot write to standard output: …` with exit status 1, instead of this one: the output the
    /// status speaks of (the sync state `status` prints before its 9, the targets before `apply`'s 10) is not
    /// there, and a script must not read the file as if it were.
    package func emit(
        json: Bool,
        output: StandardStream = .output,
        errors: StandardStream = .error
    ) -> ExitStatus {
        var reported = self
        if let text = self.output {
            do throws(CLIFailure) {
                try output.writeLine(text)
            } catch {
                reported = error
            }
        }
        errors.write((json ? reported.jsonReport : reported.report) + "\n")
        return reported.status
    }

    /// Whether a command line asks for JSON: `--json` before any `--`.
    package static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    package var description: String { self.message }

    /// The line printed on standard error: `settingsctl: MESSAGE`.
    /// The message as text for a terminal: what a value or a file brought into it that a terminal would act on (an
    /// escape sequence, a NUL, a right-to-left override) is shown as `\u{1b}`, as every view shows it, not sent; its
    /// own line breaks and tabs stay.
    package var report: String {
        "settingsctl: " + TableFormatter.printableKeepingLineBreaks(self.message)
    }

    /// The failure for an error reply of `peer` (the settings daemon unless said otherwise).
    ///
    /// Errors declared by `io.viper.settings` keep their message and exit status; `PermissionDenied` is exit
    /// status 7, as the daemon's own refusals are; the other errors of `org.varlink.service` and any other name are
    /// "other failures" (exit status 1).
    package init(errorName name: String, parameters: JSONValue, peer: VarlinkClient.Peer = .settingsDaemon) {
        defer {
            self.errorName = name
            self.parameters = parameters
        }
        if let error = SettingsErrorViewModel(errorName: name, parameters: parameters) {
            self.init(error)
            return
        }
        let text = { (key: String) in parameters[key]?.stringValue ?? "?" }
        switch name {
        case ApplyMethod.notReady:
            self.init(
                .unreachable,
                "the applier is not ready: \(text("reason")) (systemctl status viper-settings-apply viper-settingsd)"
            )
        case "org.varlink.service.MethodNotFound", "org.varlink.service.MethodNotImplemented":
            self.init(
                .failure,
                "\(peer.name) does not support \(text("method")); is it older than settingsctl?"
            )
        case "org.varlink.service.InterfaceNotFound":
            self.init(.failure, "\(peer.name) does not serve the interface \(text("interface"))")
        case "\(SettingsMethod.interface).TooManyConnections", ApplyMethod.tooManyConnections,
            "org.varlink.service.TooManyConnections":
            self.init(.unreachable, Self.tooManyConnections(parameters, peer: peer))
        case "org.varlink.service.InvalidParameter":
            self.init(.failure, "\(peer.name) rejected the parameter '\(text("parameter"))' of the call")
        case "org.varlink.service.PermissionDenied":
            switch peer {
            case .settingsDaemon:
                self.init(.permissionDenied, "permission denied: the settings daemon refused the call")
            case .applier:
                self.init(
                    .permissionDenied,
                    "permission denied: the applier (viper-settings-apply) runs a dry run for root only, as it runs"
                        + " the targets' checks; apply status is open to everyone"
                )
            }
        default:
            let details = parameters.objectValue.map { $0.isEmpty } ?? true ? "" : " \(parameters.serialized())"
            self.init(.failure, "\(peer.name) answered with the error \(name)\(details)")
        }
    }
}

extension CLIFailure {
    /// The words for a connection the peer refused over one of its limits (`limit`, `maximum`), with what to do.
    static func tooManyConnections(_ parameters: JSONValue, peer: VarlinkClient.Peer) -> String {
        let limit = parameters["limit"]?.stringValue
        let maximum = parameters["maximum"]?.intValue.map(String.init) ?? "?"
        var message =
            "\(peer.name) refuses more connections: \(limit.map { "\($0) (\(maximum))" } ?? "a limit") reached"
        switch (limit, peer) {
        case ("max-connections-per-uid", .settingsDaemon):
            message +=
                "; close some of this user's connections to it (a settingsctl watch, a client left running),"
                + " or raise max-connections-per-uid in viper-settingsd.conf; then try again"
        case ("max-connections", .settingsDaemon):
            message +=
                "; try again when other clients have closed theirs, or raise max-connections in"
                + " viper-settingsd.conf"
        default:
            message += "; try again when other connections to it have closed"
        }
        return message
    }

    /// The most characters of a value a message repeats: a value refused for its size is not printed whole.
    package static let shownValueLength = 200

    /// `value` as a message repeats it: whole when short, else its start and its size.
    package static func shown(_ value: String) -> String {
        // On one line, whatever it holds: a line break in a value is shown as `\n`, not sent.
        guard value.count > Self.shownValueLength else { return TableFormatter.printable(value) }
        return "\(TableFormatter.printable(String(value.prefix(Self.shownValueLength))))… (\(value.utf8.count) bytes)"
    }

    /// The module a `PermissionDenied` names when the call refused was a sync, which changes no one module.
    static let syncModule = "*"

    /// The message of a `NoSuchModule` (`what` is `module`) or `NoSuchKey` (`key`) for `name`: what the user may have
    /// meant (`hint`, see ``NameSuggestion``), then where the names are listed (`listing`, else the general place).
    static func noSuch(_ what: String, _ name: String, hint: String? = nil, listing: String? = nil) -> String {
        let listing =
            listing
            ?? (what == "module"
                ? "settingsctl modules lists them" : "settingsctl show MODULE lists the keys of a module")
        return "no such \(what): '\(TableFormatter.printable(name))'" + (hint.map { "; \($0)" } ?? "") + " (\(listing))"
    }

    /// The failure for an error the daemon declares: its exit status, and a message with a hint of what to run next.
    package init(_ error: SettingsErrorViewModel) {
        // Names come from the command line or the daemon: a line break in one is shown as `\n`, so that no name
        // can print a line of its own ("settingsctl: …") below the message.
        let name = TableFormatter.printable
        let message =
            switch error {
            case .noSuchModule(let module, let schemaFile?):
                // Why it is not served: no other name is what was meant.
                Self.noSuch(
                    "module",
                    module,
                    hint: "its schema file \(name(schemaFile)) was rejected",
                    listing: "settingsctl status says why"
                )
            case .noSuchModule(let module, nil): Self.noSuch("module", module)
            case .noSuchKey(let key): Self.noSuch("key", key)
            case .invalidValue(let key, let value, let reason):
                "invalid value '\(Self.shown(value))' for \(name(key)): \(reason)"
            case .keyLocked(let key, let source): "\(name(key)) is locked by \(source); local changes are refused"
            case .permissionDenied(let module, let uid, let reason) where module == Self.syncModule:
                "permission denied: uid \(uid) may not start a sync: \(reason)"
            case .permissionDenied(let module, let uid, let reason):
                "permission denied: uid \(uid) may not change module '\(name(module))': \(reason)"
            case .storageFailure(let module, let reason):
                "could not store the change to module '\(name(module))': \(reason)"
            case .syncUnavailable(let reason): "remote sync is not available: \(reason)"
            case .syncInterrupted(let reason):
                "sync did not finish: \(reason): nothing was synced; run settingsctl sync again once the daemon is "
                    + "back"
            case .revisionMismatch(let module, let expected, let actual):
                "module '\(name(module))' is at revision \(actual), not \(expected): it changed since; nothing was "
                    + "loaded (settingsctl diff \(name(module)) FILE shows what loading would do now)"
            case .loadRefused(let problems):
                (["nothing was loaded:"] + problems.map { "  \(name($0.key)): \($0.reason)" }).joined(separator: "\n")
            }
        self.init(ExitStatus(error), message)
    }
}
