import SettingsAPI

/// A JSON value of a schema with its path, for error messages: each accessor checks the value's JSON type and
/// throws a ``SchemaError`` naming the path and what was expected.
///
/// The path is written out only when it is read (an error names it, or the field is an object whose members need
/// it): a catalog of 10k items reads each item's members once, and building every member's path was a tenth of the
/// daemon's start.
struct SchemaField {
    /// The last step of the path from the field's parent: none (the root), a member's key, an element's index.
    private enum Step {
        case none
        case member(String)
        case element(Int)
    }

    var value: JSONValue
    private var parent: String
    private var step: Step

    /// The field's path: `$.sections[0].items[2].range`.
    var path: String {
        switch self.step {
        case .none: self.parent
        case .member(let key): "\(self.parent).\(key)"
        case .element(let index): "\(self.parent)[\(index)]"
        }
    }

    init(_ value: JSONValue, _ path: String) {
        self.value = value
        self.parent = path
        self.step = .none
    }

    /// The member `key` of the object at `parent`.
    init(_ value: JSONValue, parent: String, member key: String) {
        self.value = value
        self.parent = parent
        self.step = .member(key)
    }

    /// The element at `index` of the array at `parent`.
    init(_ value: JSONValue, parent: String, element index: Int) {
        self.value = value
        self.parent = parent
        self.step = .element(index)
    }

    func object() throws(SchemaError) -> SchemaObject {
        guard let members = self.value.objectValue else {
            throw SchemaError(path: self.path, reason: "expected an object, found \(self.value.typeName)")
        }
        return SchemaObject(members: members, path: self.path)
    }

    func array() throws(SchemaError) -> [SchemaField] {
        guard let elements = self.value.arrayValue else {
            throw SchemaError(path: self.path, reason: "expected an array, found \(self.value.typeName)")
        }
        let path = self.path
        return elements.enumerated().map { SchemaField($1, parent: path, element: $0) }
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

    /// A 64-bit integer, written without a fraction or an exponent (`2.0` is a number, not an integer, as it is in
    /// a stored or set value); a whole number beyond 64 bits is named as such.
    func integer() throws(SchemaError) -> Int64 {
        switch self.value {
        case .int(let value):
            return value
        case .double(let value) where value.rounded() == value:
            throw SchemaError(path: self.path, reason: "\(self.value.givenText) \(Self.integerProblem(value))")
        default:
            throw SchemaError(path: self.path, reason: "expected an integer, found \(self.value.typeName)")
        }
    }

    /// Why the whole number `value`, which the parser read as a `Double` (it has a '.' or an exponent, or does not
    /// fit 64 bits), is no `int`.
    static func integerProblem(_ value: Double) -> String {
        // Shown as the reader holds it, -2^63 itself: say why that is beyond too.
        if value == -0x1p63 {
            return Self.beyond64Bits
                + " (a JSON integer beyond 64 bits is read as a double, and one just below the range rounds to"
                + " \(Int64.min), the lowest int, which is taken written as an integer)"
        }
        guard value > -0x1p63 && value < 0x1p63 else { return Self.beyond64Bits }
        return "is not an integer (write \(Int64(value)): an int takes no '.' or exponent, in a schema as in a stored "
            + "or set value)"
    }

    /// A non-negative integer, such as a `maxLength`.
    func count() throws(SchemaError) -> Int {
        guard case .int(let value) = self.value, value >= 0 else {
            if case .double(let value) = self.value, value >= 0x1p63 {
                throw SchemaError(path: self.path, reason: "\(self.value.givenText) \(Self.beyond64Bits)")
            }
            throw SchemaError(path: self.path, reason: "expected a non-negative integer")
        }
        return Int(value)
    }

    /// A name usable in a key and in file names: ASCII letters, digits, '-' and '_', starting with a letter, at
    /// most ``ModuleSchema/maximumIDLength`` characters.
    func identifier() throws(SchemaError) -> String {
        let text = try self.string()
        // The length has a reason of its own, below.
        guard ModuleSchema.isIdentifier(text, maximumLength: .max) else {
            throw SchemaError(
                path: self.path,
                reason: "\(Self.quoted(text)) is not a valid id (ASCII letters, digits, '-' and '_', starting with a "
                    + "letter)"
            )
        }
        guard text.utf8.count <= ModuleSchema.maximumIDLength else {
            throw SchemaError(
                path: self.path,
                reason: "the id is \(text.utf8.count) characters long, more than the \(ModuleSchema.maximumIDLength) "
                    + "allowed (state files are named after the module, and a file name has at most 255 bytes)"
            )
        }
        return text
    }

    /// `text` in single quotes when it is plain printable ASCII without a quote, else quoted and escaped as a JSON
    /// string (a key or an id may hold a newline or a terminal escape, which must not reach the log as such).
    static func quoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) && $0 != "'" }
        return plain && text.count <= QuotedText.limit ? "'\(text)'" : QuotedText.quote(text)
    }

    private static let beyond64Bits =
        "does not fit a 64-bit integer (\(Int64.min)..\(Int64.max))"
}
