import SettingsAPI

extension ItemSchema {
    /// The keys every item takes, whatever its type.
    static let commonKeys = ["default", "id", "summary", "title", "type"]
    /// Each constraint with the types that take it (see the README's table of types).
    static let constraintTypes: [String: [String]] = [
        "choices": ["string"], "maxItems": ["strings"], "maxLength": ["string", "strings"],
        "pattern": ["string", "strings"], "range": ["int", "double"],
    ]
    /// The names of the types, in the order the README gives them.
    static let typeNames = ["bool", "int", "double", "string", "strings"]

    /// Reads and checks an item: its keys against its type, its constraints, its choices and its default.
    init(field: SchemaField) throws(SchemaError) {
        let object = try field.object()
        // Read as it is, for the keys it takes: a `type` missing, null or not a string is said below.
        let typeName = object.members["type"]?.stringValue
        try Self.checkKeys(of: object, typeName: typeName.flatMap { Self.typeNames.contains($0) ? $0 : nil })
        self.id = try object.member("id").identifier()
        self.title = try object.optionalMember("title")?.string() ?? self.id
        self.summary = try object.optionalMember("summary")?.string() ?? ""
        let typeField = try object.member("type")
        switch try typeField.string() {
        case "bool":
            self.type = .bool
        case "int":
            self.type = .int(range: try Self.integerRange(object.optionalMember("range")))
        case "double":
            self.type = .double(range: try Self.numberRange(object.optionalMember("range")))
        case "string":
            let choices = try object.optionalMember("choices")?.strings()
            if let choices, choices.isEmpty {
                throw SchemaError(path: "\(field.path).choices", reason: "choices must not be empty")
            }
            let pattern = try object.pattern()
            let maxLength = try object.optionalMember("maxLength")?.count()
            self.type = .string(choices: choices, pattern: pattern, maxLength: maxLength)
            try Self.checkChoices(object, against: .string(choices: nil, pattern: pattern, maxLength: maxLength))
        case "strings":
            self.type = .strings(
                maxItems: try object.optionalMember("maxItems")?.count(),
                maxLength: try object.optionalMember("maxLength")?.count(),
                pattern: try object.pattern()
            )
        case let other:
            throw SchemaError(
                path: typeField.path,
                reason: "unknown type \(SchemaField.quoted(other)), expected bool, int, double, string or strings"
            )
        }
        self.defaultValue = try Self.defaultValue(try object.member("default"), type: self.type)
    }

    /// Throws for a key no item takes, naming those this item's type takes, and for a constraint its type does not
    /// take ("'pattern' applies to string and strings items, not int"). `typeName` is `nil` when the type is missing
    /// or unknown, which is reported afterwards.
    private static func checkKeys(of object: SchemaObject, typeName: String?) throws(SchemaError) {
        // The first wrong key in sorted order, found without sorting the keys of every item (most have none).
        let wrong = object.members.keys.filter { key in
            !Self.commonKeys.contains(key)
                && Self.constraintTypes[key].map { types in typeName.map(types.contains) ?? true } != true
        }.min()
        guard let key = wrong else { return }
        // A constraint is wrong only for a known type that does not take it.
        guard let types = Self.constraintTypes[key], let typeName else {
            let constraints = Self.constraintTypes.filter { entry in typeName.map(entry.value.contains) ?? true }
            let place = typeName.map { "\($0 == "int" ? "an" : "a") \($0) item" } ?? "an item"
            throw object.unknownKey(key, allowed: Self.commonKeys + constraints.keys, in: place)
        }
        throw SchemaError(
            path: object.path(of: key),
            reason: "'\(key)' applies to \(types.joined(separator: " and ")) items, not \(typeName)"
        )
    }

    /// The `range` of an `int`: two 64-bit integers, the first not above the second.
    private static func integerRange(_ field: SchemaField?) throws(SchemaError) -> ClosedRange<Int64>? {
        guard let field else { return nil }
        let bounds = try field.array()
        guard bounds.count == 2, bounds.allSatisfy({ $0.value.doubleValue != nil }) else {
            throw SchemaError(path: field.path, reason: "expected [min, max] with integers, min <= max")
        }
        let low = try bounds[0].integer()
        let high = try bounds[1].integer()
        guard low <= high else {
            throw SchemaError(
                path: field.path,
                reason: "expected [min, max] with min <= max, found min \(low) > max \(high)"
            )
        }
        return low...high
    }

    /// The `range` of a `double`: two numbers, the first not above the second.
    private static func numberRange(_ field: SchemaField?) throws(SchemaError) -> ClosedRange<Double>? {
        guard let field else { return nil }
        let bounds = try field.array()
        guard bounds.count == 2, let low = bounds[0].value.doubleValue, let high = bounds[1].value.doubleValue,
            low <= high
        else { throw SchemaError(path: field.path, reason: "expected [min, max] with numbers, min <= max") }
        return low...high
    }

    /// Throws for the first choice the item could never store (one its pattern, its `maxLength` or the rule against
    /// control characters refuses, checked as a default is) and for a choice given twice.
    private static func checkChoices(_ object: SchemaObject, against type: SettingType) throws(SchemaError) {
        guard let choices = try object.optionalMember("choices") else { return }
        var seen: [[UInt8]: Int] = [:]
        for (index, choice) in try choices.array().enumerated() {
            do {
                _ = try type.value(fromJSON: choice.value)
            } catch {
                throw SchemaError(path: choice.path, reason: "choice \(choice.value.serialized()) \(error)")
            }
            // Compared as bytes, as a value is compared with the choices.
            let bytes = Array(choice.value.stringValue?.utf8 ?? "".utf8)
            if let first = seen[bytes] {
                throw SchemaError(
                    path: choice.path,
                    reason: "choice \(choice.value.serialized()) is given twice (first at \(choices.path)[\(first)])"
                )
            }
            seen[bytes] = index
        }
    }

    /// The default, checked by the rules a stored or set value meets: in particular an `int` takes no `2.0`.
    private static func defaultValue(_ field: SchemaField, type: SettingType) throws(SchemaError) -> SettingValue {
        if case .int = type, case .double(let number) = field.value, number.rounded() == number {
            throw SchemaError(
                path: field.path,
                reason: "default \(field.value.givenText) \(SchemaField.integerProblem(number))"
            )
        }
        do {
            return try type.value(fromJSON: field.value)
        } catch {
            throw SchemaError(path: field.path, reason: "default \(field.value.serialized()) \(error)")
        }
    }
}
