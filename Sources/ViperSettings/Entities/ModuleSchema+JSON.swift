public import SettingsAPI

/// Why a schema was rejected: the JSON path inside the file and the reason.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, when known.
    public var file: String?
    /// A JSON path such as `$.sections[0].items[1].default`.
    public var path: String
    public var reason: String

    public init(file: String? = nil, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(self.file ?? "schema"): \(self.path): \(self.reason)" }
}

extension ModuleSchema {
    /// Reads and checks a schema document. Throws a ``SchemaError`` naming the JSON path of the first problem.
    public init(json: JSONValue) throws(SchemaError) {
        let root = try Field(json, "$").object()
        self.name = try root.member("module").identifier()
        self.title = try root.optionalMember("title")?.string() ?? self.name
        self.description = try root.optionalMember("description")?.string() ?? ""
        if let writers = try root.optionalMember("writers")?.object() {
            self.writers = Writers(
                users: try writers.optionalMember("users")?.strings() ?? [],
                groups: try writers.optionalMember("groups")?.strings() ?? []
            )
        } else {
            self.writers = Writers()
        }
        let sections = try root.member("sections").array()
        guard !sections.isEmpty else { throw SchemaError(path: "$.sections", reason: "a module needs a section") }
        var sectionIDs: Set<String> = []
        self.sections = []
        for section in sections {
            let object = try section.object()
            let id = try object.member("id").identifier()
            guard sectionIDs.insert(id).inserted else {
                throw SchemaError(path: "\(section.path).id", reason: "duplicate section id '\(id)'")
            }
            var itemIDs: Set<String> = []
            var items: [ItemSchema] = []
            for item in try object.member("items").array() {
                let parsed = try ItemSchema(field: item)
                guard itemIDs.insert(parsed.id).inserted else {
                    throw SchemaError(path: "\(item.path).id", reason: "duplicate item id '\(parsed.id)'")
                }
                items.append(parsed)
            }
            self.sections.append(
                SectionSchema(id: id, title: try object.optionalMember("title")?.string() ?? id, items: items)
            )
        }
        self.positions = ItemPositions(self.sections)
    }
}

extension ItemSchema {
    fileprivate init(field: Field) throws(SchemaError) {
        let object = try field.object()
        self.id = try object.member("id").identifier()
        self.title = try object.optionalMember("title")?.string() ?? self.id
        self.summary = try object.optionalMember("summary")?.string() ?? ""
        let typeField = try object.member("type")
        let typeName = try typeField.string()
        switch typeName {
        case "bool": self.type = .bool
        case "int":
            if let range = try object.optionalMember("range") {
                let bounds = try range.array()
                guard bounds.count == 2, let low = bounds[0].value.intValue, let high = bounds[1].value.intValue,
                    low <= high
                else { throw SchemaError(path: range.path, reason: "expected [min, max] with integers, min <= max") }
                self.type = .int(range: low...high)
            } else {
                self.type = .int(range: nil)
            }
        case "double":
            if let range = try object.optionalMember("range") {
                let bounds = try range.array()
                guard bounds.count == 2, let low = bounds[0].value.doubleValue, let high = bounds[1].value.doubleValue,
                    low <= high
                else { throw SchemaError(path: range.path, reason: "expected [min, max] with numbers, min <= max") }
                self.type = .double(range: low...high)
            } else {
                self.type = .double(range: nil)
            }
        case "string":
            let choices = try object.optionalMember("choices")?.strings()
            if let choices, choices.isEmpty {
                throw SchemaError(path: "\(field.path).choices", reason: "choices must not be empty")
            }
            let pattern = try object.pattern()
            let maxLength = try object.optionalMember("maxLength")?.count()
            self.type = .string(choices: choices, pattern: pattern, maxLength: maxLength)
        case "strings":
            self.type = .strings(
                maxItems: try object.optionalMember("maxItems")?.count(),
                maxLength: try object.optionalMember("maxLength")?.count(),
                pattern: try object.pattern()
            )
        default:
            throw SchemaError(
                path: typeField.path,
                reason: "unknown type '\(typeName)', expected bool, int, double, string or strings"
            )
        }
        let defaultField = try object.member("default")
        do {
            self.defaultValue = try self.type.value(fromJSON: defaultField.value)
        } catch {
            throw SchemaError(path: defaultField.path, reason: "default \(defaultField.value.serialized()) \(error)")
        }
    }
}

/// A JSON value with its path, for error messages.
private struct Field {
    var value: JSONValue
    var path: String

    init(_ value: JSONValue, _ path: String) {
        self.value = value
        self.path = path
    }

    func object() throws(SchemaError) -> ObjectField {
        guard let members = self.value.objectValue else {
            throw SchemaError(path: self.path, reason: "expected an object, found \(self.value.typeName)")
        }
        return ObjectField(members: members, path: self.path)
    }

    func array() throws(SchemaError) -> [Field] {
        guard let elements = self.value.arrayValue else {
            throw SchemaError(path: self.path, reason: "expected an array, found \(self.value.typeName)")
        }
        return elements.enumerated().map { Field($1, "\(self.path)[\($0)]") }
    }

    func string() throws(SchemaError) -> String {
        guard let text = self.value.stringValue else {
            throw SchemaError(path: self.path, reason: "expected a string, found \(self.value.typeName)")
        }
        return text
    }

    func strings() throws(SchemaError) -> [String] {
        var result: [String] = []
        for element in try self.array() { result.append(try element.string()) }
        return result
    }

    /// A non-negative integer, such as a `maxLength`.
    func count() throws(SchemaError) -> Int {
        guard let value = self.value.intValue, value >= 0 else {
            throw SchemaError(path: self.path, reason: "expected a non-negative integer")
        }
        return Int(value)
    }

    /// A name usable in a key: letters, digits, '-' and '_', starting with a letter.
    func identifier() throws(SchemaError) -> String {
        let text = try self.string()
        let valid =
            text.first?.isLetter == true
            && text.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
            && text.unicodeScalars.allSatisfy(\.isASCII)
        guard valid else {
            throw SchemaError(
                path: self.path,
                reason: "'\(text)' is not a valid id (ASCII letters, digits, '-' and '_', starting with a letter)"
            )
        }
        return text
    }
}

private struct ObjectField {
    var members: [String: JSONValue]
    var path: String

    func member(_ key: String) throws(SchemaError) -> Field {
        guard let value = self.members[key] else {
            throw SchemaError(path: "\(self.path).\(key)", reason: "missing")
        }
        return Field(value, "\(self.path).\(key)")
    }

    func optionalMember(_ key: String) throws(SchemaError) -> Field? {
        guard let value = self.members[key], value != .null else { return nil }
        return Field(value, "\(self.path).\(key)")
    }

    /// The `pattern` member, checked to be a regular expression.
    func pattern() throws(SchemaError) -> String? {
        guard let field = try self.optionalMember("pattern") else { return nil }
        let pattern = try field.string()
        guard (try? Regex(pattern)) != nil else {
            throw SchemaError(path: field.path, reason: "not a valid regular expression")
        }
        return pattern
    }
}
