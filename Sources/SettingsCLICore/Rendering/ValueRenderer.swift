package import SettingsAPI

/// Renders the reply of `Get` (`settingsctl get KEY`): the display value alone, as the daemon wrote it,
/// so that scripts can use it (`port=$(settingsctl get network.proxy.port)`).
package enum ValueRenderer {
    /// The display value, without a newline.
    package static func render(_ model: ValueViewModel) -> String {
        model.item.display
    }
}
