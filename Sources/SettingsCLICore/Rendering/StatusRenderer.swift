package import SettingsAPI

/// Renders the replies of `Status` and `Sync` (`settingsctl status`, `settingsctl sync`).
///
/// ```
/// viper-settingsd 0.1.0: 5 modules, 37 keys
/// problems:
///   state files unusable: open /var/lib/viper-settings/network.json: Permission denied; …
/// remote sync:   ok
///   source:      etcd://127.0.0.1:2379/viper
///   revision:    42
///   last success: 3 s ago
///   in force:    3 recommended, 1 mandatory
/// ```
package enum StatusRenderer {
    /// The text of `status`.
    package static func render(_ model: StatusViewModel, style: TextStyle = .plain) -> String {
        let version = TableFormatter.printable(model.version)
        var lines = [style.strong("viper-settingsd \(version): \(model.modules) modules, \(model.keys) keys")]
        if let problems = model.problems, !problems.isEmpty {
            lines.append(style.apply(.warning, to: "problems:"))
            lines += problems.map { "  " + style.apply(.warning, to: TableFormatter.printable($0)) }
        }
        lines += Self.sync(model.sync, now: model.now)
        return lines.joined(separator: "\n")
    }

    /// The text of `sync`: the keys that changed, then the status.
    package static func render(_ model: SyncResultViewModel, style: TextStyle = .plain) -> String {
        var lines: [String]
        if model.changedKeys.isEmpty {
            // A sync that failed changed nothing, but is said to have failed first: "no value changed" alone reads
            // as a sync that worked and found nothing new.
            lines = [model.sync.state == "failing" ? "sync failed: no value changed" : "no value changed"]
        } else {
            lines = ["\(model.changedKeys.count) value\(model.changedKeys.count == 1 ? "" : "s") changed:"]
            lines += model.changedKeys.map { "  \(TableFormatter.printable($0))" }
        }
        if model.earlier == true {
            // Not a new fetch: what the sync just before this one found, which this call did not change.
            lines.insert(
                "no new sync: the one that ended just before (within sync-min-interval) gives its result",
                at: 0
            )
        }
        lines += Self.sync(model.sync, now: model.now)
        return lines.joined(separator: "\n")
    }

    /// What "last success" says before this run of the daemon has reached the remote: with a revision in force,
    /// the values cached from an earlier run are served.
    private static func noSuccess(_ sync: SyncStatusViewModel) -> String {
        guard let revision = sync.revision else { return "never" }
        return "not since the daemon started (revision \(TableFormatter.printable(revision)) in force, from its cache)"
    }

    private static func sync(_ sync: SyncStatusViewModel, now: Double) -> [String] {
        guard sync.state != "off" else { return ["remote sync: off"] }
        // The source, its revision (an ETag) and errors come from the configuration and the remote: escaped.
        var rows: [(String, String)] = [
            ("source", TableFormatter.printable(sync.source)), ("state", TableFormatter.printable(sync.state)),
        ]
        if let revision = sync.revision { rows.append(("revision", TableFormatter.printable(revision))) }
        rows.append(("last success", sync.lastSuccess.map { Self.age($0, now: now) } ?? Self.noSuccess(sync)))
        if let error = sync.lastError { rows.append(("last error", TableFormatter.printable(error))) }
        if let next = sync.nextAttempt {
            rows.append(("next attempt", next <= now ? "now" : "in \(Self.duration(next - now))"))
        }
        var inForce = "\(sync.recommendedInForce) recommended, \(sync.mandatoryInForce) mandatory"
        if sync.state == "ok" && sync.recommendedInForce == 0 && sync.mandatoryInForce == 0 {
            // Values for keys the schemas have, all refused, are told apart from keys that are none of theirs.
            // Told from the values listed: only when they are all of them.
            let unknown =
                sync.rejectedCount == sync.rejected.count
                && sync.rejected.allSatisfy { $0.contains(": no such module") || $0.contains(": no such key") }
            inForce +=
                unknown
                ? " (the source names no key of a module served: check its URL or key prefix)"
                : " (every value the source names was rejected: see below)"
        }
        rows.append(("in force", inForce))
        if sync.rejectedCount > 0 { rows.append(("rejected", "\(sync.rejectedCount) remote value(s)")) }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = ["remote sync:"]
        lines += rows.map { "  \($0.0):\(String(repeating: " ", count: width - $0.0.count)) \($0.1)" }
        lines += sync.rejected.map { "    \(TableFormatter.printable($0))" }
        if sync.rejectedCount > sync.rejected.count {
            lines.append(
                "    … and \(sync.rejectedCount - sync.rejected.count) more (settingsctl explain KEY shows those of a key)"
            )
        }
        return lines
    }

    private static func age(_ time: Double, now: Double) -> String {
        "\(Self.duration(max(0, now - time))) ago"
    }

    private static func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<1: "\(Int((seconds * 1000).rounded())) ms"
        case ..<120: "\(Int(seconds.rounded())) s"
        case ..<7200: "\(Int((seconds / 60).rounded())) min"
        default: "\(Int((seconds / 3600).rounded())) h"
        }
    }
}
