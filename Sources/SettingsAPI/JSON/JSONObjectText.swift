/// Writes a JSON object straight into compact text, member by member, named by a type's `CodingKeys`: for the
/// ViewModels sent most often (`Get` and `Set` replies), whose encoding through `Encodable` builds a tree of nodes and
/// sorts it for every reply.
///
/// The bytes are those ``JSONValueEncoder/encodeText(_:)`` writes for the same value, provided the members are
/// written in the order of their keys (checked in debug builds) and an optional that is `nil` is left out, as a
/// synthesized `Encodable` conformance does.
public struct JSONObjectText<Key: CodingKey>: ~Copyable {
    private var out: [UInt8]
    private var empty = true
    #if DEBUG
    private var lastKey: String?
    #endif

    private init(out: [UInt8]) {
        self.out = out
    }

    /// Appends to `out` the object whose members `body` writes.
    public static func write(into out: inout [UInt8], _ body: (inout Self) -> Void) {
        var object = Self(out: out)
        out = []
        object.out.append(UInt8(ascii: "{"))
        body(&object)
        object.out.append(UInt8(ascii: "}"))
        out = object.out
    }

    /// The member `key`, whose value `value` appends.
    public mutating func member(_ key: Key, _ value: (inout [UInt8]) -> Void) {
        self.name(key)
        value(&self.out)
    }

    /// The member `key`, a string.
    public mutating func member(_ key: Key, _ value: String) {
        self.name(key)
        JSONValue.writeString(value, into: &self.out)
    }

    /// The member `key`, a string; left out when `nil`.
    public mutating func member(_ key: Key, _ value: String?) {
        if let value { self.member(key, value) }
    }

    /// The member `key`, a Boolean.
    public mutating func member(_ key: Key, _ value: Bool) {
        self.name(key)
        self.out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// The member `key`, an integer.
    public mutating func member(_ key: Key, _ value: Int64) {
        self.member(key, JSONValue.int(value))
    }

    /// The member `key`, an integer; left out when `nil`.
    public mutating func member(_ key: Key, _ value: Int?) {
        if let value { self.member(key, JSONValue.int(Int64(value))) }
    }

    /// The member `key`, any JSON value.
    public mutating func member(_ key: Key, _ value: JSONValue) {
        self.name(key)
        value.write(into: &self.out)
    }

    /// The member `key`, any JSON value; left out when `nil`.
    public mutating func member(_ key: Key, _ value: JSONValue?) {
        if let value { self.member(key, value) }
    }

    /// The member `key`, an array of strings; left out when `nil`.
    public mutating func member(_ key: Key, _ value: [String]?) {
        guard let value else { return }
        self.name(key)
        self.out.append(UInt8(ascii: "["))
        for (index, element) in value.enumerated() {
            if index > 0 { self.out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(element, into: &self.out)
        }
        self.out.append(UInt8(ascii: "]"))
    }

    private mutating func name(_ key: Key) {
        var name = key.stringValue
        #if DEBUG
        if let lastKey = self.lastKey {
            assert(lastKey < name, "JSONObjectText: member '\(name)' written after '\(lastKey)'")
        }
        self.lastKey = name
        #endif
        if !self.empty { self.out.append(UInt8(ascii: ",")) }
        self.empty = false
        // Coding keys are identifiers: nothing in them to escape (checked in debug builds).
        assert(!name.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        self.out.append(UInt8(ascii: "\""))
        name.withUTF8 { self.out.append(contentsOf: $0) }
        self.out.append(UInt8(ascii: "\""))
        self.out.append(UInt8(ascii: ":"))
    }
}
