import SettingsAPI

extension SettingType {
    /// A string's choices as words list them (a constraint, a refused value's reason): `none, manual, "a b"`. A word
    /// is listed as it is; anything that could not be told apart in the list (an empty string, blanks, a comma, a
    /// quote, a control character, the `(none)` that stands for no value) as its JSON string.
    ///
    /// A long list is cut after the choices that fit in about `limit` bytes (a schema may list 200,000 choices: every
    /// refused value would repeat them all, in its error and its log line), and says how many more there are;
    /// `limits.choices` of an item holds them all.
    public static func listed(choices: [String], limit: Int = 512) -> String {
        var text = ""
        for (index, choice) in choices.enumerated() {
            let plain =
                !choice.isEmpty && choice != ItemViewModel.noValueText
                && !choice.unicodeScalars.contains {
                    $0.properties.isWhitespace || $0 == "," || $0 == "\"" || $0.value < 0x20 || $0.value == 0x7F
                }
            let shown = plain ? choice : JSONValue.string(choice).serialized()
            if index > 0, text.utf8.count + shown.utf8.count > limit {
                return text + ", … (\(choices.count - index) more)"
            }
            text += index > 0 ? ", " + shown : shown
        }
        return text
    }
}
