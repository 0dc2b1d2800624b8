package import SettingsAPI

/// Renders the reply of `Get` (`settingsctl get KEY`): the value alone, so that scripts can use it
/// (`port=$(settingsctl get network.proxy.port)`): a string as it is (an empty one as an empty line), any other
/// type as the daemon displays it, which `set` reads back (a list that commas cannot show is a JSON array).
package enum ValueRenderer {
    /// The value, without a newline.
    package static func render(_ model: ValueViewModel) -> String {
        if model.item.type == "string", let text = model.item.value.stringValue { return text }
        return model.item.display
    }
}
