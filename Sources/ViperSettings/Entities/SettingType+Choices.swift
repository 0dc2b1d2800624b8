import SettingsAPI

extension SettingType {
    /// A string's choices as words list them (a constraint, a refused value's reason): `none, manual, "a b"`. A word
    /// is listed as it is; anything that could not be told apart in the list (an empty string, blanks, a comma, a
    /// quote, a control character, the `(none)` that stands for no value) as its JSON string.
    public static func listed(choices: [String]) -> String {
        choices.map { choice in
            let plain =
                !choice.isEmpty && choice != ItemViewModel.noValueText
                && !choice.unicodeScalars.contains {
                    $0.properties.isWhitespace || $0 == "," || $0 == "\"" || $0.value < 0x20 || $0.value == 0x7F
                }
            return plain ? choice : JSONValue.string(choice).serialized()
        }.joined(separator: ", ")
    }
}
