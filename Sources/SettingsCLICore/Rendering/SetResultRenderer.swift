package import SettingsAPI

/// Renders the reply of `Set` (`settingsctl set KEY VALUE`): `network.proxy.port: 3128 -> 8080`, or
/// `network.proxy.port: unchanged (8080)` when the host already had that value.
package enum SetResultRenderer {
    /// One line, without a newline.
    package static func render(_ model: SetResultViewModel, style: TextStyle = .plain) -> String {
        Self.render(
            key: model.item.key,
            display: model.item.display,
            previous: model.previous.display,
            changed: model.changed,
            style: style
        )
    }

    /// The line from the fields it shows, for the reply read without the generic decoder.
    package static func render(
        key: String,
        display: String,
        previous: String,
        changed: Bool,
        style: TextStyle
    ) -> String {
        // Values come from whoever set them, the fleet included: control characters are shown escaped.
        let key = TableFormatter.printable(key)
        let display = TableFormatter.printable(display)
        guard changed else { return "\(key): unchanged (\(display))" }
        return "\(key): \(TableFormatter.printable(previous)) -> \(style.strong(display))"
    }
}
