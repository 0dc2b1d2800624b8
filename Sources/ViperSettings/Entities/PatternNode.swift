/// A parsed schema pattern: the tree ``PatternParser`` reads and ``PatternProgram`` compiles.
indirect enum PatternNode: Sendable {
    /// Matches the empty text (an empty alternative, `()`).
    case empty
    /// Matches one scalar of the set.
    case scalars(ScalarSet)
    /// Each node in turn.
    case sequence([PatternNode])
    /// One of the nodes.
    case alternatives([PatternNode])
    /// The node `min` times at least, and at most `max` times (`nil`: no limit).
    case repeated(PatternNode, min: Int, max: Int?)
    /// `^`: the start of the value.
    case start
    /// `$`: the end of the value.
    case end
    /// `(?=…)`, or `(?!…)` when `negated`: whether the node matches text starting here, without consuming it. `id`
    /// numbers the lookaheads of a pattern, so that a repeated one is compiled once.
    case lookahead(PatternNode, negated: Bool, id: Int)
}
