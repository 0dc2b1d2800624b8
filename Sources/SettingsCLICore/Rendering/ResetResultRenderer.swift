package import SettingsAPI

/// Renders the reply of `Reset` (`settingsctl reset KEY|MODULE`).
///
/// For a key: `network.proxy.port: reset to 3128 (default)`. For a module: a line saying its local values were
/// removed, then each key with the value that applies now and its layer, as a table (the reply does not say which
/// keys had a local value, so the table does not claim any). When nothing changed, says so.
package enum ResetResultRenderer {
    /// The lines joined with newlines, without a final newline.
    ///
    /// - Parameter target: the key or module given on the command line.
    package static func render(_ model: ResetResultViewModel, target: String, style: TextStyle = .plain) -> String {
        let shown = TableFormatter.printable(target)
        if model.items.count == 1, let item = model.items.first, item.key == target {
            let display = TableFormatter.lineValue(item.display, columns: style.columns)
            guard model.changed else { return "\(shown): unchanged, no local value (\(display))" }
            return "\(shown): reset to \(style.strong(display)) (\(item.layer.rawValue))"
        }
        guard model.changed else { return "\(shown): nothing to reset, no local values" }
        if model.items.isEmpty && target.contains(".") {
            // A key the schema no longer has: its stored value, kept to come back with the schema, is gone.
            return "\(shown): stored value removed (the schema has no such key now)"
        }
        // On a terminal the values are cut short (…) to fit its width, as `show` cuts them.
        let table = TableFormatter(columns: [.init(), .init(shrinkable: true), .init()], indent: 2, style: style)
        let rows: [[TableFormatter.Cell]] = model.items.map { item in
            [
                TableFormatter.Cell(item.key), TableFormatter.Cell(item.display),
                .init("(\(item.layer.rawValue))", .faint),
            ]
        }
        return (["\(shown): local values removed; the values now are:"] + table.render(rows)).joined(separator: "\n")
    }
}
