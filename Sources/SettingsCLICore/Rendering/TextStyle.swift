/// Colour and weight for plain output, on only when standard output is a terminal and `NO_COLOR` is unset.
///
/// Renderers apply it to the text of a cell, never to its padding, so columns stay aligned.
package struct TextStyle: Sendable, Hashable {
    /// What a piece of text stands for; each maps to one SGR sequence.
    package enum Emphasis: Sendable, Hashable {
        case none
        case strong
        case faint
        case notice
        case warning
    }

    /// Whether escape sequences are written at all.
    package var isEnabled: Bool

    package init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// No escape sequences: for pipes, files and tests.
    package static let plain = TextStyle(isEnabled: false)

    /// The style for standard output: colour on a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`.
    package static var standardOutput: TextStyle {
        let noColor = ProcessEnvironment.value("NO_COLOR").map { !$0.isEmpty } ?? false
        let dumb = ProcessEnvironment.value("TERM") == "dumb"
        return TextStyle(isEnabled: !noColor && !dumb && ProcessEnvironment.isTerminal(1))
    }

    /// `text` with `emphasis`, or `text` itself when the style is off or the text is empty.
    package func apply(_ emphasis: Emphasis, to text: String) -> String {
        guard self.isEnabled, !text.isEmpty else { return text }
        let code =
            switch emphasis {
            case .none: ""
            case .strong: "1"
            case .faint: "2"
            case .notice: "33"
            case .warning: "31"
            }
        return code.isEmpty ? text : "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// `text` in bold.
    package func strong(_ text: String) -> String { self.apply(.strong, to: text) }

    /// `text` faint, for legends and absent values.
    package func faint(_ text: String) -> String { self.apply(.faint, to: text) }
}
