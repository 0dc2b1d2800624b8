public import SettingsAPI

extension VarlinkIDL {
    /// What in a reply of `method` (a bare or fully qualified name) does not match its declared output: a field
    /// sent but not declared, a required field missing, a value of the wrong type. Empty when the reply fits.
    public func problems(inReplyOf method: String, parameters: JSONValue) -> [String] {
        let name = self.bareName(method)
        guard let declared = self.methods[name] else { return ["\(method) is not a method of \(self.interface)"] }
        return self.problems(parameters, fields: declared.output, at: name)
    }

    /// What in an error reply named `error` does not match the error's declared fields; an error of this interface
    /// that it does not declare is a problem too.
    public func problems(inError error: String, parameters: JSONValue) -> [String] {
        let name = self.bareName(error)
        guard let declared = self.errors[name] else { return ["\(error) is not an error of \(self.interface)"] }
        return self.problems(parameters, fields: declared, at: name)
    }

    private func bareName(_ name: String) -> String {
        name.hasPrefix("\(self.interface).") ? String(name.dropFirst(self.interface.count + 1)) : name
    }

    private func problems(_ value: JSONValue, fields: [VarlinkField], at path: String) -> [String] {
        guard case .object(let members) = value else { return ["\(path): expected an object, found \(value.typeName)"] }
        var problems: [String] = []
        let declared = Set(fields.map(\.name))
        for name in members.keys.sorted() where !declared.contains(name) {
            problems.append("\(path).\(name): sent but not declared")
        }
        for field in fields {
            let member = members[field.name] ?? .null
            problems += self.problems(member, type: field.type, at: "\(path).\(field.name)")
        }
        return problems
    }

    private func problems(_ value: JSONValue, type: VarlinkType, at path: String) -> [String] {
        if case .optional(let inner) = type {
            return value == .null ? [] : self.problems(value, type: inner, at: path)
        }
        if value == .null { return ["\(path): declared \(Self.name(of: type)) but missing"] }
        let mismatch = ["\(path): declared \(Self.name(of: type)), found \(value.typeName)"]
        switch (type, value) {
        case (.bool, .bool), (.int, .int), (.float, .int), (.float, .double), (.string, .string), (.object, _):
            return []
        case (.named(let name), _):
            guard let named = self.types[name] else { return ["\(path): type \(name) is not declared"] }
            return self.problems(value, type: named, at: path)
        case (.array(let element), .array(let elements)):
            return elements.enumerated().flatMap { self.problems($1, type: element, at: "\(path)[\($0)]") }
        case (.map(let element), .object(let members)):
            return members.keys.sorted().flatMap { self.problems(members[$0]!, type: element, at: "\(path).\($0)") }
        case (.enumeration(let cases), .string(let text)):
            return cases.contains(text) ? [] : ["\(path): '\(text)' is not one of \(cases.joined(separator: ", "))"]
        case (.structure(let fields), .object):
            return self.problems(value, fields: fields, at: path)
        default:
            return mismatch
        }
    }

    private static func name(of type: VarlinkType) -> String {
        switch type {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .object: "object"
        case .named(let name): name
        case .optional(let inner): "?\(Self.name(of: inner))"
        case .array(let inner): "[]\(Self.name(of: inner))"
        case .map(let inner): "[string]\(Self.name(of: inner))"
        case .enumeration: "enum"
        case .structure: "struct"
        }
    }
}
