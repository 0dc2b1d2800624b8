/// A JSON value, parsed and written without Foundation.
///
/// Numbers without a fraction or exponent that fit 64 bits are ``int(_:)``; every other number is
/// ``double(_:)``. Objects are unordered; ``serialized()`` writes their keys sorted, so output is stable. Two values
/// are equal when they are the same JSON exactly (see ``==(_:_:)``), not when they merely look alike.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object, or `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, for an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A short name of the value's JSON type, for error messages ("string", "number", …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue {
    /// Whether `lhs` and `rhs` are exactly the same value: strings with the same UTF-8 bytes (`String`'s `==` finds
    /// `"café"` spelled with U+00E9 equal to `"café"` spelled with "e" and U+0301), doubles with the same bits
    /// (`-0.0` is not `0.0`), arrays element by element and objects member by member so. An integer is never equal to
    /// a double. Object keys are found as `Dictionary` finds them.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.int(let left), .int(let right)): left == right
        case (.double(let left), .double(let right)): left.bitPattern == right.bitPattern
        case (.string(let left), .string(let right)): left.utf8.elementsEqual(right.utf8)
        case (.array(let left), .array(let right)): left.count == right.count && zip(left, right).allSatisfy(==)
        case (.object(let left), .object(let right)):
            left.count == right.count && left.allSatisfy { key, value in right[key].map { $0 == value } ?? false }
        case (.null, _), (.bool, _), (.int, _), (.double, _), (.string, _), (.array, _), (.object, _): false
        }
    }

    /// Hashes what ``==(_:_:)`` compares: the bytes of strings, the bits of doubles; an object's members in any order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3)
            hasher.combine(value.bitPattern)
        case .string(var value):
            hasher.combine(4)
            hasher.combine(value.utf8.count)
            value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .array(let elements):
            hasher.combine(5)
            hasher.combine(elements.count)
            for element in elements { element.hash(into: &hasher) }
        case .object(let members):
            hasher.combine(6)
            hasher.combine(members.count)
            // Members in no order: each hashed alone, the hashes combined by a sum, as `Dictionary` does.
            var sum = 0
            for (key, value) in members {
                var member = Hasher()
                member.combine(key)
                value.hash(into: &member)
                sum &+= member.finalize()
            }
            hasher.combine(sum)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
