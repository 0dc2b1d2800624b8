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
        /// A line a diff adds.
        case added
    }

    /// Whether escape sequences are written at all.
    package var isEnabled: Bool
    /// The width of the terminal, in columns, that tables must fit; `nil` for pipes and files, and for a terminal
    /// that does not report one (no limit).
    package var columns: Int?
    /// Whether the output goes to a terminal (text that a terminal would act on is then shown escaped); by default,
    /// whether there is a width.
    package var isTerminal: Bool

    package init(isEnabled: Bool, columns: Int? = nil, isTerminal: Bool? = nil) {
        self.isEnabled = isEnabled
        self.columns = columns
        self.isTerminal = isTerminal ?? (columns != nil)
    }

    /// No escape sequences, no width: for pipes, files and tests.
    package static let plain = TextStyle(isEnabled: false)

    /// The style for standard output: colour on a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`; on a
    /// terminal, tables fit its width (`COLUMNS` overrides the width the terminal reports).
    package static var standardOutput: TextStyle {
        let noColor = ProcessEnvironment.value("NO_COLOR").map { !$0.isEmpty } ?? false
        let dumb = ProcessEnvironment.value("TERM") == "dumb"
        let terminal = ProcessEnvironment.isTerminal(1)
        var columns: Int?
        if terminal {
            columns =
                ProcessEnvironment.value("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
                ?? ProcessEnvironment.terminalColumns(1)
        }
        // A terminal that reports no width (a pty nobody sized, as `script` makes) is a terminal all the same.
        return TextStyle(isEnabled: !noColor && !dumb && terminal, columns: columns, isTerminal: terminal)
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
            case .added: "32"
            }
        return code.isEmpty ? text : "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// `text` in bold.
    package func strong(_ text: String) -> String { self.apply(.strong, to: text) }

    /// `text` faint, for legends and absent values.
    package func faint(_ text: String) -> String { self.apply(.faint, to: text) }
}
