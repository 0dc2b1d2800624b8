package import SettingsAPI

/// Renders the reply of `Reset` (`settingsctl reset KEY|MODULE`): each item with the value that applies
/// again and the layer it comes from, or that there was nothing to reset.
package enum ResetResultRenderer {
    /// The lines joined with newlines, without a final newline.
    ///
    /// - Parameter target: the key or module given on the command line.
    package static func render(_ model: ResetResultViewModel, target: String, style: TextStyle = .plain) -> String {
        guard model.changed else {
            if model.items.count == 1, let item = model.items.first, item.key == target {
                return "\(item.key): unchanged, no local value (\(item.display))"
            }
            return "\(target): nothing to reset, no local values"
        }
        return model.items.map { item in
            "\(item.key): reset to \(style.strong(item.display)) (\(item.layer.rawValue))"
        }
        .joined(separator: "\n")
    }
}
