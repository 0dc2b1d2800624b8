/// Where a watch stream is: the history it is a position in, and for each watched module the last revision (and,
/// inside a revision that changed several keys, the last change) delivered. Opaque to clients, as text:
/// `5f3a9c01/display:7,network:42.1` (in history `5f3a9c01`, the state directory's, module `network` up to the
/// second change of revision 42). A cursor without a history (`display:7`, as daemons before it wrote them, and as
/// one whose state directory has no history token writes them) is taken by its positions alone.
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

    /// The history of the state directory the positions are in (eight lowercase hex digits), when it has one.
    public var history: String?
    /// Positions by module.
    public var positions: [String: Position]

    public init(history: String? = nil, positions: [String: Position] = [:]) {
        self.history = history
        self.positions = positions
    }

    /// Reads a cursor's text; `nil` when it is not one the daemon could have written.
    ///
    /// The text is read as strictly as ``description`` writes it: an optional history (eight lowercase hex digits
    /// and `/`), then `MODULE:REVISION` or `MODULE:REVISION.INDEX`, separated by commas (none after a history when
    /// no module was watched), modules in ascending order and each once, a module's name an id as schemas take it
    /// (``ModuleSchema/isIdentifier(_:maximumLength:)``), numbers in canonical decimal (no sign, no leading zero, no
    /// blank) that fit their type. `network:01`, `network:+1`, ` network:1` and `network:1,display:2` are refused.
    /// Whether a position exists in a module's history is not a question of text: see ``WatchInteractor``.
    public init?(_ text: String) {
        var positions: [String: Position] = [:]
        var previous: Substring?
        var rest = Substring(text)
        var history: String?
        if let slash = text.firstIndex(of: "/") {
            let token = text[..<slash]
            guard Self.isHistory(token) else { return nil }
            history = String(token)
            rest = text[text.index(after: slash)...]
            if rest.isEmpty {
                self.init(history: history)
                return
            }
        }
        for part in rest.split(separator: ",", omittingEmptySubsequences: false) {
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
        self.init(history: history, positions: positions)
    }

    /// Whether `text` is a history token: eight lowercase hex digits.
    public static func isHistory(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 8
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
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
        let positions = self.positions.keys.sorted().map { module in
            let position = self.positions[module]!
            return "\(module):\(position.revision)" + (position.index.map { ".\($0)" } ?? "")
        }.joined(separator: ",")
        return self.history.map { "\($0)/\(positions)" } ?? positions
    }
}
