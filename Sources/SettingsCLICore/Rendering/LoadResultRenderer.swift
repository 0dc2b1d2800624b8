package import SettingsAPI

/// Renders what `settingsctl load` and `diff` report: per module, the keys whose value changes (or would change,
/// or differ), `key: old -> new (layer)`, then the values that cannot be loaded with their reasons.
///
/// ```
/// network: loaded (revision 43)
///   network.proxy.port: 3128 -> 3129 (local)
/// display: no change
/// ```
package enum LoadResultRenderer {
    /// The lines of a load, without a final newline.
    package static func render(_ model: LoadResultViewModel, style: TextStyle = .plain) -> String {
        if model.modules.isEmpty && model.problems.isEmpty { return "the file names no module: nothing to load" }
        var lines: [String] = []
        for module in model.modules {
            let heading =
                !module.changed
                ? "no change (revision \(module.revision))"
                : model.applied
                    ? "loaded (revision \(module.revision))"
                    : "would change (now at revision \(module.revision))"
            lines.append("\(TableFormatter.printable(module.module)): \(heading)")
            lines += Self.changes(module.changes, style: style)
        }
        if !model.problems.isEmpty {
            lines.append("cannot be loaded (nothing \(model.applied ? "was" : "would be") loaded):")
            lines += model.problems.map { "  \(Self.shown(key: $0.key)): \(TableFormatter.printable($0.reason))" }
        }
        return lines.joined(separator: "\n")
    }

    /// A key of the file as a problem names it: as its JSON string when it is empty or has a blank at either end
    /// (`"network.proxy.port "`, which would read as the key itself), else as it is.
    static func shown(key: String) -> String {
        guard let first = key.unicodeScalars.first, let last = key.unicodeScalars.last,
            !first.properties.isWhitespace, !last.properties.isWhitespace
        else { return TableFormatter.printable(JSONValue.string(key).serialized()) }
        return TableFormatter.printable(key)
    }

    /// The lines of `diff MODULE`: each key whose value is not its default.
    package static func render(differences module: ModuleLoadViewModel, style: TextStyle = .plain) -> String {
        let name = TableFormatter.printable(module.module)
        guard module.changed else { return "\(name): every value is its default" }
        return
            (["\(name): differs from the defaults (revision \(module.revision))"]
            + Self.changes(module.changes, style: style)).joined(separator: "\n")
    }

    /// Keys, values (from the file, the schema or whoever set them) and reasons are shown with their control
    /// characters escaped.
    private static func changes(_ changes: [LoadChangeViewModel], style: TextStyle) -> [String] {
        changes.map { change in
            // On a terminal, long values are cut short (…); a pipe or --json gets them whole.
            let old = TableFormatter.lineValue(change.oldDisplay, columns: style.columns)
            let new = style.strong(TableFormatter.lineValue(change.display, columns: style.columns))
            return "  \(TableFormatter.printable(change.key)): \(old) -> \(new) "
                + style.faint("(\(change.layer.rawValue))")
        }
    }
}
