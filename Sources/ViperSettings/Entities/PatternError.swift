/// Why a schema's `pattern` was refused: a construct the linear-time matcher does not take, or a syntax error, with
/// its position (in characters, counted as Unicode code points from 1), e.g. "a backreference (\1) at position 4 is
/// not supported".
package struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { self.reason }

    /// A construct the matcher refuses, named for people, at the 0-based scalar `offset`.
    static func unsupported(_ construct: String, at offset: Int) -> PatternError {
        PatternError("\(construct) at position \(offset + 1) is not supported")
    }

    /// A syntax error at the 0-based scalar `offset`.
    static func invalid(_ problem: String, at offset: Int) -> PatternError {
        PatternError("\(problem) at position \(offset + 1)")
    }
}
