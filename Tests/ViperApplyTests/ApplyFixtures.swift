import Foundation
import SettingsAPI
import ViperTestSupport

@testable import ViperApply

/// Target files in a temporary directory, loaded the way the applier loads them.
struct TargetFolder {
    let path: String

    init(_ directory: String) throws {
        self.path = directory + "/apply.d"
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
    }

    /// Writes `NAME.json` (the given fields) and `NAME.mustache` (the template).
    func write(_ name: String, _ fields: JSONValue, template: String) throws {
        var fields = fields.objectValue ?? [:]
        if fields["template"] == nil { fields["template"] = .string("\(name).mustache") }
        try Files.write(JSONValue.object(fields).serialized(), to: "\(self.path)/\(name).json")
        try Files.write(template, to: "\(self.path)/\(name).mustache")
    }

    /// Loads every target; `running` are those loaded before, at a reload.
    func load(root: String = "", running: [ApplyTarget] = []) throws -> ApplyTargetLoader.Result {
        try ApplyTargetLoader(directory: self.path, root: root).load(running: running)
    }

    func target(_ name: String, root: String = "") throws -> ApplyTarget {
        try ApplyTargetLoader(directory: self.path, root: root).load(path: "\(self.path)/\(name).json", name: name)
    }
}
