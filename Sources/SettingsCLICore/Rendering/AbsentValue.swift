package import SettingsAPI

/// What a view shows for a value that is not there (a layer of `explain` without one, the old value of a key a
/// `watch` change adds, the new value of one it removes), and how it keeps a value from being taken for it.
///
/// The marker is `(none)`. A string can read `(none)` too, and a list of it does: such a value is shown as its
/// JSON (`"(none)"`, `["(none)"]`), as text in double quotes is JSON wherever values are shown among other words.
package enum AbsentValue {
    /// The text shown where there is no value.
    package static let marker = ItemViewModel.noValueText

    /// The text of a value's `display` where ``marker`` may stand for no value: `display` itself, or the value's
    /// JSON (`value`, else `display` as a JSON string) when it reads as the marker.
    package static func shown(_ display: String, value: JSONValue?) -> String {
        guard display == Self.marker else { return display }
        return (value ?? .string(display)).serialized()
    }

    /// The text of a value that may be absent: ``marker`` when `display` is `nil`, else as ``shown(_:value:)``.
    package static func shown(_ display: String?, value: JSONValue?) -> String {
        guard let display else { return Self.marker }
        return Self.shown(display, value: value)
    }
}
