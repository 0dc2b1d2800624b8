/// Where a watch stream is: for each watched module, the last revision (and, inside a revision that changed several
/// keys, the last change) delivered. Opaque to clients, as text: `display:7,network:42.1` (module `network` up to
/// the second change of revision 42).
public struct WatchCursor: Sendable, Hashable, CustomStringConvertible {
    /// A position in one module's changes.
    public struct Position: Sendable, Hashable {
        /// The module's revision.
        public var revision: Int64
        /// The index of the last change delivered of revision `revision`; `nil` when all were.
        public var index: Int?

        public init(revision: Int64, index: Int? = nil) {
            self.revision = revision
            self.index = index
        }

        /// Whether change `index` of the record of `revision` comes after this position.
        func precedes(revision: Int64, index: Int) -> Bool {
            if revision != self.revision { return revision > self.revision }
            guard let delivered = self.index else { return false }
            return index > delivered
        }
    }

    /// Positions by module.
    public var positions: [String: Position]

    public init(positions: [String: Position] = [:]) {
        self.positions = positions
    }

    /// Reads a cursor's text; `nil` when it is not one the daemon could have written.
    ///
    /// The text is read as strictly as ``description`` writes it: `MODULE:REVISION` or `MODULE:REVISION.INDEX`,
    /// separated by commas, modules in ascending order and each once, a module's name an id as schemas take it
    /// (``ModuleSchema/isIdentifier(_:maximumLength:)``), numbers in canonical decimal (no sign, no leading zero, no
    /// blank) that fit their type. `network:01`, `network:+1`, ` network:1` and `network:1,display:2` are refused.
    /// Whether a position exists in a module's history is not a question of text: see ``WatchInteractor``.
    public init?(_ text: String) {
        var positions: [String: Position] = [:]
        var previous: Substring?
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let colon = part.firstIndex(of: ":") else { return nil }
            let module = part[..<colon]
            let numbers = part[part.index(after: colon)...].split(separator: ".", omittingEmptySubsequences: false)
            guard ModuleSchema.isIdentifier(module), previous.map({ $0 < module }) ?? true, numbers.count <= 2,
                let revision = Self.canonical(numbers[0], as: Int64.self)
            else { return nil }
            var index: Int?
            if numbers.count == 2 {
                guard let value = Self.canonical(numbers[1], as: Int.self) else { return nil }
                index = value
            }
            positions[String(module)] = Position(revision: revision, index: index)
            previous = module
        }
        self.init(positions: positions)
    }

    /// The number `text` writes in canonical decimal (ASCII digits, no sign, no leading zero), when it fits `type`.
    private static func canonical<Number: FixedWidthInteger>(_ text: Substring, as type: Number.Type) -> Number? {
        let digits = text.utf8
        guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Number(text)
    }

    public var description: String {
        self.positions.keys.sorted().map { module in
            let position = self.positions[module]!
            return "\(module):\(position.revision)" + (position.index.map { ".\($0)" } ?? "")
        }.joined(separator: ",")
    }
}
