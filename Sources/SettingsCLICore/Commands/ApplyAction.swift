package import SettingsAPI
import ViperPOSIX

/// What `settingsctl apply` does: one call of `io.viper.settings.Apply` on the applier's own socket, and the text
/// or JSON of its reply.
///
/// The applier is read-only here: `Status` reports what it did last, `DryRun` what it would do now (it writes and
/// reloads nothing). A target that failed, or a target file the applier refused, makes the command exit with
/// ``ExitStatus/applyFailing`` after its output, so that scripts and monitoring notice.
package enum ApplyAction: Sendable, Hashable {
    /// `apply status` (and `apply`): the targets and their last outcomes.
    case status
    /// `apply --dry-run`: what applying every target now would write, and its checks.
    case dryRun

    /// The method called.
    package var method: ApplyMethod {
        switch self {
        case .status: .status
        case .dryRun: .dryRun
        }
    }

    /// Calls the applier through `client` and returns what to print: the reply as JSON when `json`, else text;
    /// `now` (seconds since the epoch, the system clock when `nil`) dates the outcomes of `status`.
    package func output(
        using client: VarlinkClient,
        style: TextStyle,
        json: Bool,
        now: Double? = nil
    ) throws(CLIFailure) -> String {
        let reply = try self.call(client)
        switch self {
        case .status:
            let model = try Self.decode(reply, of: self.method, as: ApplyStatusViewModel.self)
            let text = try CommandAction.present(json, model) {
                ApplyRenderer.render(model, now: now ?? WallClock.system.now(), style: style)
            }
            // Not following the daemon, its files do not follow the values: not ready, whatever it applied before.
            guard model.connected else {
                throw CLIFailure(
                    .unreachable,
                    "the applier is not connected to viper-settingsd: changes do not reach the files now"
                        + " (systemctl status viper-settingsd viper-settings-apply)",
                    output: text
                )
            }
            if let reason = ApplyRenderer.failure(of: model) {
                throw CLIFailure(.applyFailing, reason, output: text)
            }
            return text
        case .dryRun:
            let model = try Self.decode(reply, of: self.method, as: ApplyDryRunViewModel.self)
            let text = try CommandAction.present(json, model) { ApplyRenderer.render(model, style: style) }
            if let reason = ApplyRenderer.failure(of: model) {
                throw CLIFailure(.applyFailing, reason, output: text)
            }
            return text
        }
    }

    /// How long a dry run may take: the applier runs every target's check at the same time, each for at most
    /// ``checkLimitSeconds``, then answers; the rest is room for rendering on a loaded machine.
    package static let dryRunTimeoutSeconds = 90

    /// How long the applier lets a check run before it kills it.
    package static let checkLimitSeconds = 60

    /// The client for this call: for a dry run, one that waits for the checks (the applier is busy meanwhile, not
    /// unreachable), and says so if it still does not answer.
    package func client(for client: VarlinkClient) -> VarlinkClient {
        guard self == .dryRun else { return client }
        var patient = client
        patient.timeoutSeconds = max(client.timeoutSeconds, Self.dryRunTimeoutSeconds)
        patient.slowAnswer =
            "a dry run waits for the targets' checks, which it runs at the same time and kills after"
            + " \(Self.checkLimitSeconds) s, so the applier is overloaded or stuck; try again later, and see"
            + " journalctl -u viper-settings-apply"
        return patient
    }

    /// Calls the method; a socket that does not serve `io.viper.settings.Apply` (the settings daemon's, say) is
    /// named as such.
    private func call(_ client: VarlinkClient) throws(CLIFailure) -> JSONValue {
        let client = self.client(for: client)
        do {
            return try client.call(method: self.method.qualifiedName, parameters: [:])
        } catch var failure {
            switch failure.errorName {
            case "org.varlink.service.InterfaceNotFound", "org.varlink.service.MethodNotFound",
                "org.varlink.service.MethodNotImplemented":
                failure.message =
                    "\(client.location.path) (\(client.location.explanation)) does not serve "
                    + "\(self.method.qualifiedName): is it the socket of viper-settings-apply, and is that as new as "
                    + "settingsctl? (default: \(SocketLocator.applySystemPath))"
            default: break
            }
            throw failure
        }
    }

    /// Reads the reply of `method` as a `Model`.
    private static func decode<Model: Decodable>(
        _ reply: JSONValue,
        of method: ApplyMethod,
        as model: Model.Type
    ) throws(CLIFailure) -> Model {
        do {
            return try JSONValueDecoder().decode(model, from: reply)
        } catch {
            throw CLIFailure(.failure, "unexpected reply of the applier to \(method.rawValue): \(error)")
        }
    }
}
