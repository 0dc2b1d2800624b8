package import SettingsAPI

/// Renders the replies of `io.viper.settings.Apply` (`settingsctl apply status`, `settingsctl apply --dry-run`).
///
/// `apply status`: whether the applier follows the daemon, a table of the targets, what went wrong with each
/// that failed, and the refused target files:
///
/// ```
/// viper-settings-apply: following viper-settingsd; last change applied: cursor 5f3a9c01/network:42
/// TARGET    DESTINATION                    RESULT        WHEN       REVISIONS
/// chrony    /etc/chrony/conf.d/viper.conf  written       3 min ago  network:4, time:2
/// resolved  /etc/systemd/resolved.conf     check-failed  12 s ago   network:5
/// resolved: the check refused the rendered file
///   check: failed with status 1
///     line 3: unknown key 'DNSX'
/// ```
///
/// `apply --dry-run`: per target, a line with its destination and result, its check, the unified diff, then a
/// summary saying that nothing was written.
package enum ApplyRenderer {
    /// The results that mean the target is not as rendered: its check, its reload, or its rendering failed.
    package static let failedResults: Set<String> = ["check-failed", "reload-failed", "failed"]

    /// Whether `outcome` is a failure: a failed result, or a check that did not pass.
    package static func failed(_ outcome: TargetOutcomeViewModel) -> Bool {
        Self.failedResults.contains(outcome.result) || (outcome.check.map { $0.status != 0 } ?? false)
    }

    // MARK: status

    /// The text of `apply status`; `now` (seconds since the epoch) dates the outcomes ("3 min ago").
    package static func render(_ model: ApplyStatusViewModel, now: Double, style: TextStyle = .plain) -> String {
        var lines = [Self.following(model, style: style)]
        if let applying = model.applying {
            let seconds = max(0, Int((now - applying.since).rounded(.down)))
            var line = "applying \(style.strong(Self.printable(applying.target))) now, for \(seconds) s"
            if !applying.waiting.isEmpty {
                line += "; waiting for it: " + applying.waiting.map(Self.printable).joined(separator: ", ")
            }
            lines.append(line)
        }
        if model.targets.isEmpty {
            lines.append(style.faint("no targets"))
        } else {
            let table = TableFormatter(
                columns: [
                    .init("TARGET"), .init("DESTINATION", shrinkable: true), .init("RESULT"), .init("WHEN"),
                    .init("REVISIONS", shrinkable: true),
                ],
                style: style
            )
            lines += table.render(
                model.targets.map { target in
                    guard let last = target.last else {
                        return [.init(target.target), .init(target.destination), .init("-", .faint), .init("never")]
                    }
                    return [
                        .init(target.target), .init(target.destination),
                        .init(last.result, Self.emphasis(of: last)),
                        .init(last.at.map { Self.age($0, now: now) } ?? "-"), .init(Self.revisions(last.revisions)),
                    ]
                }
            )
        }
        for target in model.targets {
            guard let last = target.last else { continue }
            if let skipped = last.reloadSkipped, !Self.failed(last) {
                lines.append(
                    style.strong(Self.printable(target.target)) + ": "
                        + style.faint("reload skipped: " + Self.printable(skipped))
                )
            }
            guard Self.failed(last) || last.error != nil else { continue }
            lines.append(
                style.strong(Self.printable(target.target)) + ": " + style.apply(.warning, to: Self.summary(of: last))
            )
            lines += Self.commands(of: last, indent: "  ", style: style)
            if let retry = target.retry {
                let wait = max(0, Int((retry.at - now).rounded(.up)))
                lines.append("  trying again in \(wait) s (retry \(retry.attempt))")
            }
        }
        lines += Self.targetFiles(model.problems, heading: style.apply(.warning, to: "refused target files:"))
        lines += Self.warnings(model.warnings, style: style)
        return lines.joined(separator: "\n")
    }

    /// Why `apply status` exits with ``ExitStatus/applyFailing``, or `nil` when every target is fine.
    package static func failure(of model: ApplyStatusViewModel) -> String? {
        let failed = model.targets.compactMap { target in
            target.last.flatMap { Self.failed($0) ? "\(target.target): \($0.result)" : nil }
        }
        var parts: [String] = []
        if !failed.isEmpty {
            parts.append("\(Self.count(failed.count, "target")) failed \(Self.listed(failed))")
        }
        if !model.problems.isEmpty {
            parts.append("\(Self.count(Self.files(model.problems), "target file")) refused")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    private static func following(_ model: ApplyStatusViewModel, style: TextStyle) -> String {
        let cursor = model.cursor.map { "last change applied: cursor \(Self.printable($0))" } ?? "no change applied yet"
        guard model.connected else {
            return style.strong("viper-settings-apply: ")
                + style.apply(.warning, to: "not connected to viper-settingsd") + "; \(cursor)"
        }
        return style.strong("viper-settings-apply: ") + "following viper-settingsd; \(cursor)"
    }

    // MARK: dry run

    /// The text of `apply --dry-run`.
    package static func render(_ model: ApplyDryRunViewModel, style: TextStyle = .plain) -> String {
        var lines: [String] = []
        for outcome in model.targets {
            let result = style.apply(Self.emphasis(of: outcome), to: Self.printable(outcome.result))
            lines.append(
                style.strong(Self.printable(outcome.target)) + " (\(Self.printable(outcome.destination))): " + result
            )
            if let error = outcome.error { lines.append("  " + style.apply(.warning, to: Self.printable(error))) }
            if let attributes = outcome.attributes, !attributes.isEmpty {
                lines.append("  " + Self.printable(attributes.joined(separator: ", ")))
            }
            if outcome.check == nil, outcome.result != "failed" { lines.append("  check: " + style.faint("none")) }
            lines += Self.commands(of: outcome, indent: "  ", style: style, passed: true)
            if let diff = outcome.diff, !diff.isEmpty { lines += Self.diff(diff, style: style) }
        }
        lines += Self.targetFiles(model.problems, heading: style.apply(.warning, to: "refused target files:"))
        lines += Self.warnings(model.warnings, style: style)
        lines.append(Self.dryRunSummary(model))
        return lines.joined(separator: "\n")
    }

    /// Why `apply --dry-run` exits with ``ExitStatus/applyFailing``, or `nil` when every target would apply.
    package static func failure(of model: ApplyDryRunViewModel) -> String? {
        let failed = model.targets.filter(Self.failed).map { "\($0.target): \($0.result)" }
        var parts: [String] = []
        if !failed.isEmpty {
            parts.append("\(Self.count(failed.count, "target")) would fail \(Self.listed(failed))")
        }
        if !model.problems.isEmpty {
            parts.append("\(Self.count(Self.files(model.problems), "target file")) refused")
        }
        return parts.isEmpty ? nil : "dry run: " + parts.joined(separator: "; ")
    }

    private static func dryRunSummary(_ model: ApplyDryRunViewModel) -> String {
        var counts: [(String, Int)] = []
        for outcome in model.targets {
            if let index = counts.firstIndex(where: { $0.0 == outcome.result }) {
                counts[index].1 += 1
            } else {
                counts.append((outcome.result, 1))
            }
        }
        let tally = counts.map { "\($0.1) \(Self.printable($0.0))" }.joined(separator: ", ")
        let targets = Self.count(model.targets.count, "target") + (tally.isEmpty ? "" : ": \(tally)")
        return "dry run: nothing written, nothing reloaded; \(targets)"
    }

    /// The diff as it came, each line coloured by its first character, control characters but tabs escaped.
    private static func diff(_ diff: String, style: TextStyle) -> [String] {
        Self.lines(diff).map { line in
            let emphasis: TextStyle.Emphasis =
                switch line.first {
                case "+" where !line.hasPrefix("+++ "): .added
                case "-" where !line.hasPrefix("--- "): .warning
                case "@": .faint
                default: .none
                }
            return style.apply(emphasis, to: Self.printable(line))
        }
    }

    // MARK: shared

    private static func emphasis(of outcome: TargetOutcomeViewModel) -> TextStyle.Emphasis {
        if Self.failed(outcome) { return .warning }
        return outcome.result == "would-write" || outcome.result == "written" ? .notice : .none
    }

    /// The error of a failed outcome, or its result in words.
    private static func summary(of outcome: TargetOutcomeViewModel) -> String {
        if let error = outcome.error { return Self.printable(error) }
        switch outcome.result {
        case "check-failed": return "the check refused the rendered file"
        case "reload-failed": return "the reload failed; the previous file was put back"
        default: return Self.printable(outcome.result)
        }
    }

    /// The lines of the check, the reload and the rollback reload: the status, then the standard error, indented.
    /// Only the check and reload that failed, unless `passed`.
    private static func commands(
        of outcome: TargetOutcomeViewModel,
        indent: String,
        style: TextStyle,
        passed: Bool = false
    ) -> [String] {
        // The reload of the restored previous file is always shown: whether the service runs the old file again.
        let commands: [(String, CommandResultViewModel?, Bool)] = [
            ("check", outcome.check, passed), ("reload", outcome.reload, passed),
            ("reload of the previous file", outcome.rollbackReload, true),
        ]
        var lines: [String] = []
        for case (let name, let result?, let shown) in commands where shown || result.status != 0 {
            let verdict =
                result.status == 0
                ? "passed"
                : style.apply(
                    .warning,
                    to: result.signal == nil ? "failed with status \(result.status)" : result.ending
                )
            lines.append("\(indent)\(name): \(verdict)")
            lines += Self.lines(result.stderr).map { "\(indent)  \(Self.printable($0))" }
        }
        return lines
    }

    /// The heading of the target files applied all the same, with what to fix; they do not make the command fail.
    private static let warningsHeading = "target files to fix (applied all the same):"

    /// The heading of the files the applier wrote that no target writes any more; they do not make the command fail.
    private static let leftBehindHeading = "files written for targets that no longer write them (left as they are):"

    /// The target files to fix, then the files the applier wrote that no target writes any more.
    private static func warnings(_ warnings: [TargetProblemViewModel], style: TextStyle) -> [String] {
        Self.targetFiles(warnings.filter { $0.writtenFor == nil }, heading: Self.warningsHeading)
            + Self.targetFiles(
                warnings.filter { $0.writtenFor != nil },
                heading: style.apply(.warning, to: Self.leftBehindHeading)
            )
    }

    /// `heading`, then each target file of `problems` with its reason; nothing when there is none.
    private static func targetFiles(_ problems: [TargetProblemViewModel], heading: String) -> [String] {
        guard !problems.isEmpty else { return [] }
        return [heading] + problems.map { "  \(Self.printable($0.file)): \(Self.printable($0.reason))" }
    }

    /// How many files `problems` name: a file may have several.
    private static func files(_ problems: [TargetProblemViewModel]) -> Int {
        Set(problems.map(\.file)).count
    }

    /// `network:4, time:2`, modules sorted.
    private static func revisions(_ revisions: [String: Int64]) -> String {
        revisions.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ", ")
    }

    /// `text` cut into lines, without the empty line after a final line break.
    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// One line as it is, tabs included, with every other control character escaped: the text of a file or of a
    /// command's standard error must not move the cursor or change the terminal's colours.
    private static func printable(_ line: String) -> String {
        line.split(separator: "\t", omittingEmptySubsequences: false).map { TableFormatter.printable(String($0)) }
            .joined(separator: "\t")
    }

    private static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `(a: check-failed, b: failed)`, at most three named.
    private static func listed(_ items: [String]) -> String {
        let shown = items.prefix(3).joined(separator: ", ")
        return "(\(shown)\(items.count > 3 ? ", …" : ""))"
    }

    private static func age(_ time: Double, now: Double) -> String {
        let seconds = max(0, now - time)
        return switch seconds {
        case ..<1: "just now"
        case ..<120: "\(Int(seconds.rounded())) s ago"
        case ..<7200: "\(Int((seconds / 60).rounded())) min ago"
        case ..<172_800: "\(Int((seconds / 3600).rounded())) h ago"
        default: "\(Int((seconds / 86400).rounded())) d ago"
        }
    }
}
