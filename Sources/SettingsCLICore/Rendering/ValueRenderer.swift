package import SettingsAPI

/// Renders the reply of `Get` (`settingsctl get KEY`): the value alone, so that scripts can use it
/// (`port=$(settingsctl get network.proxy.port)`): a string as it is (an empty one as an empty line), any other
/// type as the daemon displays it, which `set` reads back (a list that commas cannot show is a JSON array).
///
/// On a terminal, control characters but line breaks and tabs are shown escaped (`\u{1b}`), as every other view
/// shows text from a schema or a value: a choice or a value set by the fleet cannot clear the screen or retitle the
/// terminal. A pipe or a file gets the value as it is.
package enum ValueRenderer {
    /// The value, without a newline.
    package static func render(_ model: ValueViewModel, style: TextStyle = .plain) -> String {
        if model.item.type == "string", let text = model.item.value.stringValue {
            return Self.shown(text, style: style)
        }
        return Self.shown(model.item.display, style: style)
    }

    /// `text` as `get` prints it with `style`: as it is, or on a terminal with its control characters but line
    /// breaks and tabs escaped.
    package static func shown(_ text: String, style: TextStyle) -> String {
        style.isTerminal ? TableFormatter.printableKeepingLineBreaks(text) : text
    }
}
