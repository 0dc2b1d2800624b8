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
    ///
    /// On a terminal of known width (``TextStyle/columns``) every line fits it: values, sources, titles and reasons
    /// are cut short (`…`); in a pipe they are whole.
    package static func render(_ model: ExplainViewModel, style: TextStyle = .plain) -> String {
        let item = model.item
        let width = style.columns
        // Every text from the schema or the daemon is shown with its control characters escaped: the title, the
        // constraint (a string's choices), values, sources, reasons.
        let key = TableFormatter.printable(item.key)
        let heading = TableFormatter.fitted(key, to: width)
        var lines = [style.strong(heading)]
        let titleRoom = width.map { $0 - TableFormatter.width(of: key) - 2 }
        if !item.title.isEmpty, (titleRoom ?? 1) >= 1 {
            lines[0] += ": " + TableFormatter.fitted(TableFormatter.printable(item.title), to: titleRoom)
        }
        if !item.summary.isEmpty {
            lines.append(TableFormatter.fitted("  " + TableFormatter.printable(item.summary), to: width))
        }
        var typeLine = "  type \(TableFormatter.printable(item.type))"
        if let constraint = item.constraint, !constraint.isEmpty {
            typeLine += ", \(TableFormatter.printable(constraint))"
        }
        if item.locked { typeLine += "; locked, local changes are refused" }
        lines.append(TableFormatter.fitted(typeLine, to: width))
        lines.append("")

        // On a terminal the value and the source are cut short (…) to fit its width; --json gives them whole.
        let table = TableFormatter(
            columns: [.init(), .init("LAYER"), .init("VALUE", shrinkable: true), .init("SOURCE", shrinkable: true)],
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
            let line = "remote revision in force: \(TableFormatter.printable(remote))"
            lines.append(style.faint(TableFormatter.fitted(line, to: width)))
        }
        for reason in model.rejected ?? [] {
            let line = "fleet value rejected: \(TableFormatter.printable(reason))"
            lines.append(style.apply(.warning, to: TableFormatter.fitted(line, to: width)))
        }
        for value in model.ignored ?? [] {
            let line = "stored value ignored, the schema rejects it: \(TableFormatter.printable(value))"
            lines.append(style.apply(.warning, to: TableFormatter.fitted(line, to: width)))
        }
        lines.append("")
        // The value is cut rather than the layer after it, which says where it comes from.
        let prefix = "\(Self.winnerMarker) wins: \(key) is "
        let suffix = " (\(model.winner.rawValue))"
        let room = width.map { $0 - TableFormatter.width(of: prefix) - TableFormatter.width(of: suffix) }
        let winner = prefix + TableFormatter.fitted(TableFormatter.printable(item.display), to: room) + suffix
        lines.append(style.faint(TableFormatter.fitted(winner, to: width)))
        return lines.joined(separator: "\n")
    }
}
