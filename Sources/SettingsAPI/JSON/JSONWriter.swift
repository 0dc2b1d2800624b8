extension JSONValue {
    /// The value as compact JSON text, object keys sorted.
    public func serialized() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        self.write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The value as JSON text indented by two spaces, object keys sorted, for files people read.
    public func prettyPrinted() -> String {
        var out: [UInt8] = []
        self.write(into: &out, indent: 0, pretty: true)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value as compact JSON UTF-8 bytes.
    public func write(into out: inout [UInt8]) {
        self.write(into: &out, indent: 0, pretty: false)
    }

    private func write(into out: inout [UInt8], indent: Int, pretty: Bool) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): Self.writeInteger(value, into: &out)
        case .double(let value):
            if value.isFinite {
                // Swift prints the shortest text that reads back as the same Double.
                out.append(contentsOf: value.description.utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&out, indent + 1) }
                element.write(into: &out, indent: indent + 1, pretty: pretty)
            }
            if pretty && !elements.isEmpty { Self.newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            // The keys alone are sorted: an array of (key, value) pairs would be one more generic type for the
            // runtime to instantiate, which a short-lived settingsctl pays for at its first object.
            Self.writeObject(members.keys.sorted(), into: &out, indent: indent, pretty: pretty) {
                (key: $0, value: members[$0]!)
            }
        }
    }

    /// Appends an object whose members keep the order given, compact or indented by two spaces (`pretty`): for
    /// files people read, whose header comes first.
    public static func writeObject(_ members: [(key: String, value: JSONValue)], into out: inout [UInt8], pretty: Bool)
    {
        Self.writeObject(members, into: &out, indent: 0, pretty: pretty) { $0 }
    }

    /// Appends the object whose members, in order, are `member` of each element of `elements`.
    private static func writeObject<Elements: Collection>(
        _ elements: Elements,
        into out: inout [UInt8],
        indent: Int,
        pretty: Bool,
        member: (Elements.Element) -> (key: String, value: JSONValue)
    ) {
        out.append(UInt8(ascii: "{"))
        for (index, element) in elements.enumerated() {
            let (key, value) = member(element)
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if pretty { Self.newline(&out, indent + 1) }
            Self.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            if pretty { out.append(UInt8(ascii: " ")) }
            value.write(into: &out, indent: indent + 1, pretty: pretty)
        }
        if pretty && !elements.isEmpty { Self.newline(&out, indent) }
        out.append(UInt8(ascii: "}"))
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes a string is escaped for, or that may start an invisible character (0xE2, 0xEF, 0xD8): one load per
    /// byte in the scan for a plain string.
    private static let mayNeedEscape: [Bool] = (0...255).map { byte in
        byte < 0x20 || byte == Int(UInt8(ascii: "\"")) || byte == Int(UInt8(ascii: "\\")) || byte == 0xE2
            || byte == 0xEF || byte == 0xD8
    }

    /// Appends `value` in decimal, as `String(value)` spells it, without making the string (a reply or a journal line
    /// writes several integers).
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; filled from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends `value` as a JSON string, escaping what JSON requires, and the invisible characters that reorder or
    /// hide the text around them (``QuotedText/isInvisible(_:)``, as `\u202e`): the same value, but JSON printed on a
    /// terminal (`settingsctl --json`, `dump`, a state file) cannot read backwards.
    static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: appended whole, straight from their UTF-8 storage. The invisible characters
        // start with 0xE2 or 0xEF in UTF-8, U+061C with 0xD8.
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where Self.mayNeedEscape[Int(byte)] { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for scalar in value.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0..<0x20:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                default: out.append(byte)
                }
            } else if QuotedText.isInvisible(scalar) {
                out.append(contentsOf: "\\u".utf8)
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.append(hexDigits[Int((scalar.value >> UInt32(shift)) & 0xF)])
                }
            } else {
                out.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
