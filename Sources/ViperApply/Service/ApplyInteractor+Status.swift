import ViperSystemd

/// The applier's one-line status (systemd's `STATUS=`, `systemctl status viper-settings-apply`): how many targets,
/// which fail, and where it stands with the settings daemon. It is told whenever it changes, not only at `READY=1`,
/// so that it never goes stale: the daemon appears, is lost, comes back.
extension ApplyInteractor {
    /// One line for systemd's status: targets, failures, and the daemon (following it, catching up, lost and
    /// reconnecting, or waiting for its values).
    public func summary() -> String {
        let refused = self.problems.isEmpty ? "" : ", \(self.problems.count) target files refused"
        guard self.ready else {
            let why =
                if self.connected {
                    ""
                } else if !self.attempted {
                    " (connecting)"
                } else if self.connectedOnce {
                    " (lost the connection; reconnecting)"
                } else {
                    " (cannot reach it; trying again)"
                }
            return "\(self.targets.count) targets\(refused); waiting for the settings daemon's values\(why)"
        }
        let failing = self.targets.filter { self.lastApplyFailed($0.name) }
        // Ready is told after a while even when a check or reload runs long: say so rather than "applied".
        // "Applied" counts only the targets whose files hold what the values render.
        var text =
            !self.isSettled
            ? "\(self.targets.count) targets; still applying (a check or reload runs)"
            : failing.isEmpty
                ? "\(self.targets.count) targets applied"
                : "\(self.targets.count) targets, \(self.targets.count - failing.count) applied"
        if !failing.isEmpty { text += ", \(failing.count) failing (\(failing.map(\.name).joined(separator: ", ")))" }
        if !self.retries.isEmpty { text += ", \(self.retries.count) to retry" }
        let daemon =
            if self.upToDate {
                "following the settings daemon"
            } else if self.connected {
                "catching up with the settings daemon"
            } else {
                "lost the settings daemon; reconnecting (the files keep the values last received)"
            }
        return text + refused + "; " + daemon
    }

    /// Tells systemd `READY=1` with the summary (at start, and after a SIGHUP); returns the summary.
    @discardableResult
    public func tellReady() -> String {
        let status = self.summary()
        self.notifier?.ready(status: status)
        self.toldStatus = status
        return status
    }

    /// Tells systemd `STOPPING=1`; no status is told after it.
    public func tellStopping() {
        self.stopping = true
        self.notifier?.stopping(status: "stopping")
    }

    /// Tells systemd the summary (`STATUS=`) when it changed since it was last told.
    func tellStatus() {
        guard let notifier = self.notifier, !self.stopping else { return }
        let status = self.summary()
        guard status != self.toldStatus else { return }
        notifier.status(status)
        self.toldStatus = status
    }
}
