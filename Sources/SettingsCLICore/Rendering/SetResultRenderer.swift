package import SettingsAPI

/// Renders the reply of `Set` (`settingsctl set KEY VALUE`): `network.proxy.port: 3128 -> 8080`, or
/// `network.proxy.port: unchanged (8080)` when the host already had that value.
package enum SetResultRenderer {
    /// One line, without a newline.
    package static func render(_ model: SetResultViewModel, style: TextStyle = .plain) -> String {
        let key = model.item.key
        guard model.changed else {
            return "\(key): unchanged (\(model.item.display))"
        }
        return "\(key): \(model.previous.display) -> \(style.strong(model.item.display))"
    }
}
