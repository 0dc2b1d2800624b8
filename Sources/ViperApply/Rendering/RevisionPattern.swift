/// A rendering whose `revision.MODULE` values are markers, matched against a file to read back the revisions it was
/// rendered with (``TargetRenderer/revisions(in:target:values:)``): what the applier does when it no longer knows
/// them (its state file was lost), so that a file that holds the current values keeps its revision and is not
/// rewritten, nor its service reloaded, for nothing.
struct RevisionPattern {
    enum Part: Equatable {
        case literal([UInt8])
        case revision(module: String)
    }

    private static let open: [UInt8] = Array("\u{1}revision:".utf8)
    private static let close = UInt8(1)

    /// What the template is given as `revision.MODULE`: a text no value contains (schemas refuse control characters).
    static func marker(_ module: String) -> String { "\u{1}revision:\(module)\u{1}" }

    let parts: [Part]

    init(_ rendered: String) {
        let bytes = Array(rendered.utf8)
        var parts: [Part] = []
        var literal: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == Self.close, bytes[index...].starts(with: Self.open),
                let end = bytes[(index + Self.open.count)...].firstIndex(of: Self.close)
            {
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = []
                let module = String(decoding: bytes[(index + Self.open.count)..<end], as: UTF8.self)
                parts.append(.revision(module: module))
                index = end + 1
            } else {
                literal.append(bytes[index])
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// The revision each marker stands for in `file`, or `nil` when `file` is not this rendering with digits in
    /// place of its markers, one number per module.
    func match(_ file: [UInt8]) -> [String: Int64]? {
        var revisions: [String: Int64] = [:]
        var position = 0
        for (index, part) in self.parts.enumerated() {
            switch part {
            case .literal(let bytes):
                guard file[position...].starts(with: bytes) else { return nil }
                position += bytes.count
            case .revision(let module):
                let digits = file[position...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                // Where the text after the marker starts with a digit too, the number's end is a guess: not taken.
                if index + 1 < self.parts.count {
                    guard case .literal(let next) = self.parts[index + 1], let first = next.first,
                        !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
                    else { return nil }
                }
                guard !digits.isEmpty, digits.count <= 19,
                    let revision = Int64(String(decoding: digits, as: UTF8.self)),
                    revisions[module, default: revision] == revision
                else { return nil }
                revisions[module] = revision
                position += digits.count
            }
        }
        return position == file.count ? revisions : nil
    }
}
