/// Encodes an `Encodable` value into a ``JSONValue``, without Foundation.
///
/// Integers become ``JSONValue/int(_:)``, floating-point numbers ``JSONValue/double(_:)``; an optional that is
/// `nil` is left out of its object (synthesized `Encodable` conformances use `encodeIfPresent`); a ``JSONValue``
/// inside a value is taken as it is.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// The JSON form of `value`; throws only what `value`'s own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let node = EncodingNode()
        try node.encode(value, path: [])
        return node.value
    }

    /// `value` as compact JSON text, object keys sorted: the same bytes as `encode(value).write(into:)`, written
    /// straight from the encoded tree, without building the ``JSONValue`` first. `isObject` tells whether the
    /// text is a JSON object.
    public func encodeText<T: Encodable>(_ value: T) throws -> (bytes: [UInt8], isObject: Bool) {
        let node = EncodingNode()
        try node.encode(value, path: [])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        node.write(into: &bytes)
        return (bytes, node.isObject)
    }
}

/// A value being encoded: a leaf, or an object or array whose members are filled in by containers.
///
/// Members and elements live in stored properties of their own, so that adding one mutates a uniquely referenced
/// collection in place (an enum payload would be copied on every member).
final class EncodingNode {
    private enum Kind {
        case leaf
        case object
        case array
    }

    private var kind = Kind.leaf
    private var leaf = JSONValue.object([:])
    /// The members in the order they were encoded; a key encoded twice keeps its last value.
    private var members: [(key: String, node: EncodingNode)] = []
    private var elements: [EncodingNode] = []

    /// The JSON value encoded so far.
    var value: JSONValue {
        switch self.kind {
        case .leaf: self.leaf
        case .object:
            .object(Dictionary(self.members.map { ($0.key, $0.node.value) }, uniquingKeysWith: { _, last in last }))
        case .array: .array(self.elements.map(\.value))
        }
    }

    /// Whether the value is a JSON object.
    var isObject: Bool {
        switch self.kind {
        case .leaf: if case .object = self.leaf { true } else { false }
        case .object: true
        case .array: false
        }
    }

    /// Appends the value as compact JSON text, object keys sorted, as ``JSONValue/write(into:)`` does.
    func write(into out: inout [UInt8]) {
        switch self.kind {
        case .leaf:
            self.leaf.write(into: &out)
        case .array:
            out.append(UInt8(ascii: "["))
            for (index, element) in self.elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object:
            // Sorted by key, then by the order encoded, so that of a key encoded twice the last one is written.
            let order = self.members.indices.sorted {
                let (left, right) = (self.members[$0].key, self.members[$1].key)
                return left != right ? left < right : $0 < $1
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            for (position, index) in order.enumerated() {
                let member = self.members[index]
                if position + 1 < order.count && self.members[order[position + 1]].key == member.key { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.string(member.key).write(into: &out)
                out.append(UInt8(ascii: ":"))
                member.node.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    func set(_ value: JSONValue) {
        self.kind = .leaf
        self.leaf = value
        self.members = []
        self.elements = []
    }

    func encode<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
        if let json = value as? JSONValue {
            self.set(json)
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: path))
        }
    }

    /// The member `key`, made an object first if this node is not one yet.
    func member(_ key: String) -> EncodingNode {
        self.makeObject()
        let child = EncodingNode()
        self.members.append((key, child))
        return child
    }

    func makeObject() {
        guard self.kind != .object else { return }
        self.kind = .object
        self.members = []
        self.elements = []
    }

    func makeArray() {
        guard self.kind != .array else { return }
        self.kind = .array
        self.members = []
        self.elements = []
    }

    /// A new last element, made an array first if this node is not one yet.
    func appendElement() -> EncodingNode {
        self.makeArray()
        let child = EncodingNode()
        self.elements.append(child)
        return child
    }

    var count: Int { self.kind == .array ? self.elements.count : 0 }
}

struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        self.node.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: self.node, codingPath: self.codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        self.node.makeArray()
        return UnkeyedNodeContainer(node: self.node, codingPath: self.codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: self.node, codingPath: self.codingPath)
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { self.node.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) { self.node.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) { self.node.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) { self.node.member(key.stringValue).set(.double(value)) }
    mutating func encode(_ value: Float, forKey key: Key) {
        self.node.member(key.stringValue).set(.double(Double(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) { self.node.member(key.stringValue).set(.int(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { self.node.member(key.stringValue).set(.int(value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try self.node.member(key.stringValue).encode(value, path: self.codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = self.node.member(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: self.codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = self.node.member(key.stringValue)
        child.makeArray()
        return UnkeyedNodeContainer(node: child, codingPath: self.codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: self.node.member("super"), codingPath: self.codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: self.node.member(key.stringValue), codingPath: self.codingPath + [key])
    }
}

struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { self.node.count }

    mutating func encodeNil() { self.node.appendElement().set(.null) }
    mutating func encode(_ value: Bool) { self.node.appendElement().set(.bool(value)) }
    mutating func encode(_ value: String) { self.node.appendElement().set(.string(value)) }
    mutating func encode(_ value: Double) { self.node.appendElement().set(.double(value)) }
    mutating func encode(_ value: Int) { self.node.appendElement().set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) { self.node.appendElement().set(.int(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = IndexKey(self.count)
        try self.node.appendElement().encode(value, path: self.codingPath + [index])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = self.codingPath + [IndexKey(self.count)]
        let child = self.node.appendElement()
        child.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = self.codingPath + [IndexKey(self.count)]
        let child = self.node.appendElement()
        child.makeArray()
        return UnkeyedNodeContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = self.codingPath + [IndexKey(self.count)]
        return NodeEncoder(node: self.node.appendElement(), codingPath: path)
    }
}

struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() { self.node.set(.null) }
    mutating func encode(_ value: Bool) { self.node.set(.bool(value)) }
    mutating func encode(_ value: String) { self.node.set(.string(value)) }
    mutating func encode(_ value: Double) { self.node.set(.double(value)) }
    mutating func encode(_ value: Float) { self.node.set(.double(Double(value))) }
    mutating func encode(_ value: Int) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) { self.node.set(.int(value)) }
    mutating func encode(_ value: UInt8) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) { self.node.set(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) { self.node.set(.int(Int64(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try self.node.encode(value, path: self.codingPath)
    }
}

/// The coding key of an array element or of an object member whose name is only known at run time.
struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ index: Int) {
        self.stringValue = String(index)
        self.intValue = index
    }

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) { self.init(intValue) }
}
