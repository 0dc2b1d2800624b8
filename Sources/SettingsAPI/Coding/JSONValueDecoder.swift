/// Decodes a `Decodable` value from a ``JSONValue``, without Foundation.
///
/// A member that is absent or `null` is missing: an error for a non-optional property, `nil` for an optional one.
/// A `Double` accepts an integer. A ``JSONValue`` inside a value takes the member as it is. Failures are
/// ``JSONDecodingError``s that name the field as a dotted path, e.g. `item.layer` or `layers[2].value`.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Decodes a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodingError) -> T {
        do {
            return try NodeDecoder(value: value, codingPath: []).decode(type)
        } catch let error as JSONDecodingError {
            throw error
        } catch let error as DecodingError {
            throw JSONDecodingError(decodingError: error)
        } catch {
            throw JSONDecodingError(field: "", reason: "\(error)")
        }
    }
}

extension JSONDecodingError {
    /// The error for a `DecodingError` thrown by a type's own `init(from:)`.
    init(decodingError: DecodingError) {
        switch decodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            self.init(field: Self.field(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self.init(field: "", reason: "\(decodingError)")
        }
    }

    /// A coding path as a dotted path with indices: `layers[2].value`.
    static func field(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}

struct NodeDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = self.value else { throw self.mismatch("an object") }
        return KeyedDecodingContainer(KeyedNodeDecoder<Key>(members: members, codingPath: self.codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.value else { throw self.mismatch("an array") }
        return UnkeyedNodeDecoder(elements: elements, codingPath: self.codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ expected: String) -> JSONDecodingError {
        let reason = self.value == .null ? "missing" : "expected \(expected), found \(self.value.typeName)"
        return JSONDecodingError(field: JSONDecodingError.field(self.codingPath), reason: reason)
    }

    func decodeNil() -> Bool { self.value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = self.value else { throw self.mismatch("a boolean") }
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = self.value else { throw self.mismatch("a string") }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch self.value {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: throw self.mismatch("a number")
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try self.decode(Double.self)) }

    func decode(_ type: Int64.Type) throws -> Int64 {
        guard case .int(let value) = self.value else { throw self.mismatch("an integer") }
        return value
    }

    func decode(_ type: Int.Type) throws -> Int { try self.integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try self.integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try self.integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try self.integer(Int32.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try self.integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try self.integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try self.integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try self.integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try self.integer(UInt64.self) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard let value = I(exactly: try self.decode(Int64.self)) else {
            throw JSONDecodingError(field: JSONDecodingError.field(self.codingPath), reason: "out of range")
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return self.value as! T }
        return try T(from: self)
    }
}

struct KeyedNodeDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { self.members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { self.members[key.stringValue] != nil }

    /// The member `key` as a decoder; a missing member decodes as `null`, which only optionals accept.
    private func member(_ key: Key) -> NodeDecoder {
        NodeDecoder(value: self.members[key.stringValue] ?? .null, codingPath: self.codingPath + [key])
    }

    func decodeNil(forKey key: Key) -> Bool { self.member(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try self.member(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try self.member(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try self.member(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try self.member(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try self.member(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try self.member(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try self.member(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try self.member(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try self.member(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try self.member(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try self.member(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try self.member(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try self.member(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try self.member(key).decode(type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let member = self.member(key)
        // A required member is never null, even one of any JSON value.
        if T.self == JSONValue.self, member.value == .null { throw member.mismatch("a value") }
        return try member.decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try self.member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(value: self.members["super"] ?? .null, codingPath: self.codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { self.member(key) }
}

struct UnkeyedNodeDecoder: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { self.elements.count }
    var isAtEnd: Bool { self.currentIndex >= self.elements.count }

    /// The next element as a decoder.
    private mutating func next() throws -> NodeDecoder {
        let path = self.codingPath + [IndexKey(self.currentIndex)]
        guard !self.isAtEnd else {
            throw JSONDecodingError(field: JSONDecodingError.field(path), reason: "missing")
        }
        defer { self.currentIndex += 1 }
        return NodeDecoder(value: self.elements[self.currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !self.isAtEnd, self.elements[self.currentIndex] == .null else { return false }
        self.currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try self.next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try self.next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try self.next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try self.next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try self.next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try self.next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try self.next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try self.next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try self.next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try self.next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try self.next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try self.next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try self.next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try self.next().decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try self.next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try self.next() }
}
