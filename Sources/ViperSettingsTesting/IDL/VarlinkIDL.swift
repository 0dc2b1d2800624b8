/// A Varlink interface description (an `.varlink` file) parsed into its types, methods and errors, so that tests
/// can check what a service sends against what it declares (``VarlinkIDL/problems(inReplyOf:parameters:)``).
///
/// Understood: `interface`, `type NAME (…)` (a struct or an enum), `method NAME(…) -> (…)`, `error NAME (…)`,
/// the types `bool`, `int`, `float`, `string`, `object` (any JSON value), named types, `?T`, `[]T`, `[string]T`
/// and inline structs and enums. Comments (`#` to the end of the line) are skipped.
public struct VarlinkIDL: Sendable {
    /// The interface's name, e.g. `io.viper.settings`.
    public var interface: String
    /// The named types.
    public var types: [String: VarlinkType]
    /// Each method's input and output fields.
    public var methods: [String: (input: [VarlinkField], output: [VarlinkField])]
    /// Each error's fields.
    public var errors: [String: [VarlinkField]]

    /// Parses `text`; throws a ``VarlinkIDLError`` naming the token that does not fit.
    public init(parsing text: String) throws(VarlinkIDLError) {
        var parser = Parser(tokens: Self.tokens(of: text))
        var interface: String?
        var types: [String: VarlinkType] = [:]
        var methods: [String: (input: [VarlinkField], output: [VarlinkField])] = [:]
        var errors: [String: [VarlinkField]] = [:]
        while let keyword = parser.next() {
            switch keyword {
            case "interface": interface = try parser.name()
            case "type":
                let name = try parser.name()
                types[name] = try parser.structOrEnum()
            case "method":
                let name = try parser.name()
                let input = try parser.fields()
                try parser.expect("->")
                methods[name] = (input, try parser.fields())
            case "error":
                let name = try parser.name()
                errors[name] = try parser.fields()
            default: throw VarlinkIDLError("expected interface, type, method or error, found '\(keyword)'")
            }
        }
        guard let interface else { throw VarlinkIDLError("no interface line") }
        self.interface = interface
        self.types = types
        self.methods = methods
        self.errors = errors
    }

    private static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var word = ""
            var characters = Array(line.prefix { $0 != "#" })
            characters.append(" ")
            var index = 0
            while index < characters.count {
                let character = characters[index]
                if character.isLetter || character.isNumber || character == "_" || character == "." {
                    word.append(character)
                    index += 1
                    continue
                }
                if !word.isEmpty {
                    tokens.append(word)
                    word = ""
                }
                if character == "-" && index + 1 < characters.count && characters[index + 1] == ">" {
                    tokens.append("->")
                    index += 2
                    continue
                }
                if !character.isWhitespace { tokens.append(String(character)) }
                index += 1
            }
        }
        return tokens
    }
}

/// A field of a struct, method or error.
public struct VarlinkField: Sendable, Hashable {
    public var name: String
    public var type: VarlinkType
}

/// A Varlink type.
public indirect enum VarlinkType: Sendable, Hashable {
    case bool, int, float, string
    /// Any JSON value.
    case object
    case named(String)
    case optional(VarlinkType)
    case array(VarlinkType)
    /// `[string]T`: an object whose values are `T`.
    case map(VarlinkType)
    case enumeration([String])
    case structure([VarlinkField])
}

/// The interface description could not be parsed.
public struct VarlinkIDLError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = "interface description: \(description)" }
}

private struct Parser {
    let tokens: [String]
    var index = 0

    mutating func next() -> String? {
        guard self.index < self.tokens.count else { return nil }
        defer { self.index += 1 }
        return self.tokens[self.index]
    }

    func peek(_ offset: Int = 0) -> String? {
        self.index + offset < self.tokens.count ? self.tokens[self.index + offset] : nil
    }

    mutating func expect(_ token: String) throws(VarlinkIDLError) {
        let found = self.next()
        guard found == token else { throw VarlinkIDLError("expected '\(token)', found '\(found ?? "the end")'") }
    }

    mutating func name() throws(VarlinkIDLError) -> String {
        guard let name = self.next(), name.first?.isLetter == true else {
            throw VarlinkIDLError("expected a name before '\(self.peek() ?? "the end")'")
        }
        return name
    }

    /// `( … )`: an enum when its first member is not followed by `:`.
    mutating func structOrEnum() throws(VarlinkIDLError) -> VarlinkType {
        if self.peek() == "(", self.peek(1) != ")", self.peek(2) != ":" {
            try self.expect("(")
            var cases: [String] = []
            while true {
                cases.append(try self.name())
                if self.peek() == ")" { break }
                try self.expect(",")
            }
            try self.expect(")")
            return .enumeration(cases)
        }
        return .structure(try self.fields())
    }

    mutating func fields() throws(VarlinkIDLError) -> [VarlinkField] {
        try self.expect("(")
        var fields: [VarlinkField] = []
        while self.peek() != ")" {
            let name = try self.name()
            try self.expect(":")
            fields.append(VarlinkField(name: name, type: try self.type()))
            if self.peek() == "," { _ = self.next() }
        }
        try self.expect(")")
        return fields
    }

    mutating func type() throws(VarlinkIDLError) -> VarlinkType {
        switch self.peek() {
        case "?":
            _ = self.next()
            return .optional(try self.type())
        case "[":
            _ = self.next()
            if self.peek() == "]" {
                _ = self.next()
                return .array(try self.type())
            }
            try self.expect("string")
            try self.expect("]")
            return .map(try self.type())
        case "(": return try self.structOrEnum()
        default:
            switch try self.name() {
            case "bool": return .bool
            case "int": return .int
            case "float": return .float
            case "string": return .string
            case "object": return .object
            case let name: return .named(name)
            }
        }
    }
}
