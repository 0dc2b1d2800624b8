package import SettingsAPI

/// Renders the reply of `ShowModule` (`settingsctl show MODULE`): the module's title and description, then
/// each section as a heading over its items, aligned across sections, then a legend of the markers.
///
/// ```
/// Network (network, revision 7)
/// Proxy and name resolution for this host
///
/// Proxy
///   network.proxy.mode  manual  *  [locked]  Proxy mode
///   network.proxy.port  3128                 Port
///
/// * set here or by the fleet (not the schema default)   [locked] mandated by the fleet; local changes are refused
/// ```
package enum ModuleRenderer {
    /// The marker of an item whose value is not the schema default.
    package static let modifiedMarker = "*"
    /// The marker of an item the fleet mandates.
    package static let lockedMarker = "[locked]"
    /// What the markers mean.
    package static let legendEntries = [
        "\(modifiedMarker) set here or by the fleet (not the schema default)",
        "\(lockedMarker) mandated by the fleet; local changes are refused",
    ]
    /// The line that explains the markers.
    package static let legend = legendEntries.joined(separator: "   ")

    /// The legend on one line, or one line per marker when one line does not fit `columns`.
    static func legend(fitting columns: Int?) -> [String] {
        guard let columns, TableFormatter.width(of: Self.legend) > columns else { return [Self.legend] }
        return Self.legendEntries
    }

    /// The text, lines joined with newlines, without a final newline.
    package static func render(_ model: ModuleViewModel, style: TextStyle = .plain) -> String {
        Self.body(model, style: style) + "\n\n"
            + Self.legend(fitting: style.columns).map(style.faint).joined(separator: "\n")
    }

    /// Every module's text, one after another with a blank line between, then the legend once.
    package static func render(_ models: [ModuleViewModel], style: TextStyle = .plain) -> String {
        (models.map { Self.body($0, style: style) } + [
            Self.legend(fitting: style.columns).map(style.faint).joined(separator: "\n")
        ])
        .joined(separator: "\n\n")
    }

    /// A module's text without the legend.
    private static func body(_ model: ModuleViewModel, style: TextStyle) -> String {
        // Every text from the schema or the daemon is shown with its control characters escaped.
        let title = style.strong(TableFormatter.printable(model.title))
        var lines = ["\(title) (\(TableFormatter.printable(model.module)), revision \(model.revision))"]
        if !model.description.isEmpty { lines.append(TableFormatter.printable(model.description)) }

        // On a terminal the value and the title are cut short (…) to fit its width; --json gives them whole.
        let columns: [TableFormatter.Column] = [
            .init(), .init(shrinkable: true), .init(), .init(), .init(shrinkable: true),
        ]
        let table = TableFormatter(columns: columns, indent: 2, style: style)
        let rows = model.sections.flatMap { section in section.items.map(Self.row) }
        var itemLines = table.render(rows)[...]
        for section in model.sections {
            lines.append("")
            lines.append(style.strong(TableFormatter.printable(section.title.isEmpty ? section.id : section.title)))
            if section.items.isEmpty { lines.append(style.faint("  (no settings)")) }
            lines += itemLines.prefix(section.items.count)
            itemLines = itemLines.dropFirst(section.items.count)
        }
        if model.sections.isEmpty {
            lines.append("")
            lines.append(style.faint("(no settings)"))
        }
        return lines.joined(separator: "\n")
    }

    private static func row(_ item: ItemViewModel) -> [TableFormatter.Cell] {
        [
            TableFormatter.Cell(item.key),
            TableFormatter.Cell(item.display, item.modified ? .strong : .none),
            TableFormatter.Cell(item.modified ? Self.modifiedMarker : "", .notice),
            TableFormatter.Cell(item.locked ? Self.lockedMarker : "", .warning),
            TableFormatter.Cell(item.title, .faint),
        ]
    }
}
