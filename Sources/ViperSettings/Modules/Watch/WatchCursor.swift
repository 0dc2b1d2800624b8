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

    /// Reads a cursor's text; `nil` when it is not one.
    public init?(_ text: String) {
        var positions: [String: Position] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let colon = part.lastIndex(of: ":") else { return nil }
            let module = String(part[..<colon])
            let numbers = part[part.index(after: colon)...].split(separator: ".", omittingEmptySubsequences: false)
            guard !module.isEmpty, positions[module] == nil, numbers.count <= 2,
                let revision = Int64(numbers[0]), revision >= 0
            else { return nil }
            var index: Int?
            if numbers.count == 2 {
                guard let value = Int(numbers[1]), value >= 0 else { return nil }
                index = value
            }
            positions[module] = Position(revision: revision, index: index)
        }
        self.init(positions: positions)
    }

    public var description: String {
        self.positions.keys.sorted().map { module in
            let position = self.positions[module]!
            return "\(module):\(position.revision)" + (position.index.map { ".\($0)" } ?? "")
        }.joined(separator: ",")
    }
}
