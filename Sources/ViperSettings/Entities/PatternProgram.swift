import Synchronization

/// A schema's `pattern` compiled once, when the schema is loaded, for a matcher that runs in time linear in the
/// length of the value (a Thompson NFA simulated with sets of states, without backtracking): a pattern such as
/// `(a+)+$` cannot stall the daemon, whatever the value.
///
/// Programs are immutable and compared by their source text.
package final class PatternProgram: Sendable, Hashable, CustomStringConvertible {
    /// One step of a program.
    enum Instruction: Sendable {
        /// Consumes one scalar of the set.
        case scalars(ScalarSet)
        /// Goes on at both places.
        case split(Int, Int)
        /// Goes on at the place.
        case jump(Int)
        /// Goes on at the start of the value only (`^`).
        case assertStart
        /// Goes on at the end of the value only (`$`).
        case assertEnd
        /// Goes on where the lookahead program of that index matches, or, `negated`, where it does not.
        case lookahead(Int, negated: Bool)
        /// The end of the program: the text read so far matches.
        case match
    }

    /// A decision that cost at least this many steps is kept (``decided(_:)``), for the texts checked again and again.
    static let keptAbove = 200_000
    /// The most decisions kept per program: enough for every stored value of a large module to be checked once,
    /// not again at every read that shows it (64 were too few: a `show` of a module with more costly values than
    /// that checked each of them again, for seconds).
    static let keptLimit = 4096
    /// The most UTF-8 bytes of the texts kept per program (they are mostly the stored values themselves, whose
    /// storage they share).
    static let keptBytes = 16 << 20

    /// The most instructions a pattern may compile to, its lookaheads included (`{n,m}` copies what it repeats).

    package static let maxInstructions = 10_000

    /// The pattern as the schema wrote it.
    package let source: String
    /// The program of the whole pattern, read forwards.
    let main: [Instruction]
    /// The body of each lookahead, compiled backwards (see ``matches(_:)``); a lookahead nested in another comes
    /// first.
    let lookaheads: [[Instruction]]
    /// Texts whose decision cost many steps, and the decision (`nil`: more than ``stepLimit`` steps): a stored
    /// value is checked at every read that shows it.
    private let costly = Mutex(Kept())

    /// The decisions kept, and the bytes of their texts.
    private struct Kept {
        var decisions: [String: Bool?] = [:]
        var bytes = 0
    }

    /// Compiles `source`, or throws what it holds that the matcher does not take.
    package init(_ source: String) throws(PatternError) {
        let node = try PatternParser.parse(source)
        let (main, lookaheads) = try PatternCompiler.compile(node)
        self.source = source
        self.main = main
        self.lookaheads = lookaheads
    }

    /// The decision kept for `text`, if one was: `.some(nil)` when it takes more than ``stepLimit`` steps.
    func decided(_ text: String) -> Bool?? {
        self.costly.withLock { $0.decisions[text] }
    }

    /// Keeps the decision for `text`; past ``keptLimit`` texts or ``keptBytes`` bytes, starts over.
    func keep(_ text: String, _ result: Bool?) {
        let size = text.utf8.count
        guard size <= Self.keptBytes else { return }
        self.costly.withLock { kept in
            if kept.decisions.count >= Self.keptLimit || kept.bytes + size > Self.keptBytes {
                kept.decisions.removeAll(keepingCapacity: true)
                kept.bytes = 0
            }
            if kept.decisions.updateValue(result, forKey: text) == nil { kept.bytes += size }
        }
    }

    /// How many decisions are kept (for tests).
    package var keptCount: Int { self.costly.withLock { $0.decisions.count } }

    /// Compiled programs by source text: a check compiles nothing that a schema load compiled already.
    private static let cache = Mutex<[String: PatternProgram]>([:])
    /// The most programs the cache keeps; it starts afresh when full (a reload with ever new patterns).
    private static let cacheLimit = 512

    /// The program of `source`, compiled at most once while it is cached.
    package static func compiled(_ source: String) throws(PatternError) -> PatternProgram {
        if let program = self.cache.withLock({ $0[source] }) { return program }
        let program = try PatternProgram(source)
        self.cache.withLock { programs in
            if programs.count >= self.cacheLimit { programs.removeAll() }
            programs[source] = program
        }
        return program
    }

    package var description: String { self.source }

    package static func == (lhs: PatternProgram, rhs: PatternProgram) -> Bool { lhs.source == rhs.source }

    package func hash(into hasher: inout Hasher) { hasher.combine(self.source) }
}
