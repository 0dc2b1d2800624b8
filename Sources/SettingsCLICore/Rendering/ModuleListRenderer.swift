package import SettingsAPI

/// Renders the reply of `ListModules` (`settingsctl modules`) as a table: NAME TITLE KEYS MODIFIED REVISION.
package enum ModuleListRenderer {
    /// The table's lines joined with newlines, without a final newline; on a terminal, titles are cut short (…) to
    /// fit its width.
    package static func render(_ model: ModuleListViewModel, style: TextStyle = .plain) -> String {
        guard !model.modules.isEmpty else { return "No modules." }
        let table = TableFormatter(
            columns: [
                .init("NAME"), .init("TITLE", shrinkable: true), .init("KEYS", alignment: .right),
                .init("MODIFIED", alignment: .right), .init("REVISION", alignment: .right),
            ],
            style: style
        )
        let rows: [[TableFormatter.Cell]] = model.modules.map { module in
            [
                TableFormatter.Cell(module.module, .strong), TableFormatter.Cell(module.title),
                TableFormatter.Cell(String(module.keys)),
                TableFormatter.Cell(String(module.modified), module.modified > 0 ? .notice : .none),
                TableFormatter.Cell(String(module.revision)),
            ]
        }
        return table.render(rows).joined(separator: "\n")
    }
}
