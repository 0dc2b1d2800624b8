/// A JSON value did not have the shape a ViewModel or message needs.
public struct JSONDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, as a dotted path, e.g. "item.value".
    public var field: String
    /// What was wrong with it.
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(self.field): \(self.reason)" }
}

extension JSONValue {
    /// The member `key` of this object, which must be present and non-null.
    public func required(_ key: String) throws(JSONDecodingError) -> JSONValue {
        guard let value = self[key], value != .null else {
            throw JSONDecodingError(field: key, reason: "missing")
        }
        return value
    }

    /// The string member `key`.
    public func string(_ key: String) throws(JSONDecodingError) -> String {
        guard let value = try self.required(key).stringValue else {
            throw JSONDecodingError(field: key, reason: "expected a string")
        }
        return value
    }

    /// The optional string member `key`: `nil` when absent or null.
    public func optionalString(_ key: String) throws(JSONDecodingError) -> String? {
        guard let value = self[key], value != .null else { return nil }
        guard let string = value.stringValue else { throw JSONDecodingError(field: key, reason: "expected a string") }
        return string
    }

    /// The integer member `key`.
    public func int(_ key: String) throws(JSONDecodingError) -> Int64 {
        guard let value = try self.required(key).intValue else {
            throw JSONDecodingError(field: key, reason: "expected an integer")
        }
        return value
    }

    /// The Boolean member `key`.
    public func bool(_ key: String) throws(JSONDecodingError) -> Bool {
        guard let value = try self.required(key).boolValue else {
            throw JSONDecodingError(field: key, reason: "expected a boolean")
        }
        return value
    }

    /// The array member `key`, each element decoded by `transform`.
    public func array<T>(
        _ key: String,
        _ transform: (JSONValue) throws(JSONDecodingError) -> T
    ) throws(JSONDecodingError) -> [T] {
        guard let elements = try self.required(key).arrayValue else {
            throw JSONDecodingError(field: key, reason: "expected an array")
        }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                result.append(try transform(element))
            } catch {
                throw JSONDecodingError(field: "\(key)[\(index)].\(error.field)", reason: error.reason)
            }
        }
        return result
    }

    /// The object member `key`, decoded by `transform`.
    public func nested<T>(
        _ key: String,
        _ transform: (JSONValue) throws(JSONDecodingError) -> T
    ) throws(JSONDecodingError) -> T {
        do {
            return try transform(try self.required(key))
        } catch {
            throw error.field == key ? error : JSONDecodingError(field: "\(key).\(error.field)", reason: error.reason)
        }
    }
}
