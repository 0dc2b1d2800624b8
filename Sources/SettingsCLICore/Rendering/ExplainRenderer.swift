package import SettingsAPI

/// Renders the reply of `Explain` (`settingsctl explain KEY`): the key's title, summary, type and constraint,
/// then a table of its layers with the winning one marked.
///
/// ```
/// network.proxy.port: Port
///   Port of the manual proxy
///   type int, 1..65535
///
///    LAYER        VALUE   SOURCE
///    default      3128    config/modules/network.json
///    recommended  (none)  https://fleet.example/settings.json
/// *  local        8080    this host
///    mandatory    (none)  https://fleet.example/settings.json
///
/// * wins: network.proxy.port is 8080 (local)
/// ```
package enum ExplainRenderer {
    /// The marker of the winning layer.
    package static let winnerMarker = "*"
    /// What a layer without a value shows as its value: ``AbsentValue/marker``, as `watch` shows no value; a value
    /// that reads as it is shown as its JSON.
    package static let absentValue = AbsentValue.marker

    /// The text, lines joined with newlines, without a final newline.
    package static func render(_ model: ExplainViewModel, style: TextStyle = .plain) -> String {
        let item = model.item
        // Every text from the schema or the daemon is shown with its control characters escaped: the title, the
        // constraint (a string's choices), values, sources, reasons.
        let key = style.strong(TableFormatter.printable(item.key))
        var lines = [item.title.isEmpty ? key : "\(key): \(TableFormatter.printable(item.title))"]
        if !item.summary.isEmpty { lines.append("  " + TableFormatter.printable(item.summary)) }
        var typeLine = "  type \(TableFormatter.printable(item.type))"
        if let constraint = item.constraint, !constraint.isEmpty {
            typeLine += ", \(TableFormatter.printable(constraint))"
        }
        if item.locked { typeLine += "; locked, local changes are refused" }
        lines.append(typeLine)
        lines.append("")

        let table = TableFormatter(
            columns: [.init(), .init("LAYER"), .init("VALUE"), .init("SOURCE")],
            style: style
        )
        let rows: [[TableFormatter.Cell]] = model.layers.map { layer in
            let wins = layer.layer == model.winner
            let value =
                layer.present
                ? TableFormatter.Cell(
                    AbsentValue.shown(layer.display ?? layer.value?.serialized() ?? "", value: layer.value),
                    wins ? .strong : .none
                )
                : TableFormatter.Cell(Self.absentValue, .faint)
            return [
                TableFormatter.Cell(wins ? Self.winnerMarker : "", .notice),
                TableFormatter.Cell(layer.layer.rawValue, wins ? .strong : .none), value,
                TableFormatter.Cell(layer.source, .faint),
            ]
        }
        lines += table.render(rows)
        if let remote = model.remoteRevision {
            lines.append(style.faint("remote revision in force: \(TableFormatter.printable(remote))"))
        }
        for reason in model.rejected ?? [] {
            lines.append(
                style.apply(.warning, to: "fleet value rejected by the schema: \(TableFormatter.printable(reason))")
            )
        }
        for value in model.ignored ?? [] {
            lines.append(
                style.apply(
                    .warning,
                    to: "stored value ignored, the schema rejects it: \(TableFormatter.printable(value))"
                )
            )
        }
        lines.append("")
        let winner = "\(TableFormatter.printable(item.key)) is \(TableFormatter.printable(item.display))"
        lines.append(style.faint("\(Self.winnerMarker) wins: \(winner) (\(model.winner.rawValue))"))
        return lines.joined(separator: "\n")
    }
}
