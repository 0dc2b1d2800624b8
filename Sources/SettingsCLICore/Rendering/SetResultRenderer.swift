package import SettingsAPI

/// Renders the reply of `Set` (`settingsctl set KEY VALUE`): `network.proxy.port: 3128 -> 8080`, or
/// `network.proxy.port: unchanged (8080)` when the host already had that value. A value set equal to the one in
/// effect from another layer names both layers (`network.dns.cache: true (default) -> true (local)`): the key is
/// now set on this host, and no longer follows the schema's default or the fleet's recommendation.
package enum SetResultRenderer {
    /// One line, without a newline.
    package static func render(_ model: SetResultViewModel, style: TextStyle = .plain) -> String {
        Self.render(
            key: model.item.key,
            display: model.item.display,
            previous: model.previous.display,
            changed: model.changed,
            layers: (model.previous.layer.rawValue, model.item.layer.rawValue),
            style: style
        )
    }

    /// The line from the fields it shows, for the reply read without the generic decoder.
    package static func render(
        key: String,
        display: String,
        previous: String,
        changed: Bool,
        layers: (before: String, after: String)? = nil,
        style: TextStyle
    ) -> String {
        // Values come from whoever set them, the fleet included: control characters are shown escaped.
        // On a terminal, long values are cut short (…); a pipe or --json gets them whole.
        let key = TableFormatter.printable(key)
        let shown = TableFormatter.lineValue(display, columns: style.columns)
        guard changed else { return "\(key): unchanged (\(shown))" }
        if previous == display, let layers, layers.before != layers.after {
            let (before, after) = (TableFormatter.printable(layers.before), TableFormatter.printable(layers.after))
            return "\(key): \(shown) (\(before)) -> \(style.strong(shown)) (\(after))"
        }
        return "\(key): \(TableFormatter.lineValue(previous, columns: style.columns)) -> \(style.strong(shown))"
    }
}
