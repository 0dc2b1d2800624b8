import Glibc
import SettingsAPI
import SettingsCLICore
import Testing
import ViperTestSupport

@Suite("CLIFailure: what a failed command prints and its exit status")
struct CLIFailureTests {
    /// Emits `failure`, its output to `/dev/full` (a full disk); the exit status and what reached standard error.
    static func emitIntoFullDisk(_ failure: CLIFailure, json: Bool) throws -> (SettingsCLICore.ExitStatus, String) {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let descriptors = try #require(Descriptors.pipe())
        defer { close(descriptors[0]) }
        let status = failure.emit(
            json: json,
            output: StandardStream(descriptor: full, name: "standard output"),
            errors: StandardStream(descriptor: descriptors[1], name: "standard error")
        )
        close(descriptors[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptors[0], &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return (status, String(decoding: bytes, as: UTF8.self))
    }

    @Test(
        "output that cannot be written is the failure reported, exit 1, not the command's own 9 or 10",
        arguments: [
            CLIFailure(.syncFailing, "remote sync is failing: connection refused", output: "remote sync: failing"),
            CLIFailure(.applyFailing, "a target failed: resolved", output: "resolved  check-failed"),
        ]
    )
    func unwritableOutput(failure: CLIFailure) throws {
        let expected = "cannot write to standard output: No space left on device"
        let (status, errors) = try Self.emitIntoFullDisk(failure, json: false)
        #expect(status == .failure)
        #expect(errors == "settingsctl: \(expected)\n")
        let (jsonStatus, report) = try Self.emitIntoFullDisk(failure, json: true)
        #expect(jsonStatus == .failure)
        #expect(try JSONValue(parsing: report) == ["message": .string(expected), "exitStatus": 1])
    }

    @Test("a failure without output keeps its status and message")
    func withoutOutput() throws {
        let (status, errors) = try Self.emitIntoFullDisk(CLIFailure(.notFound, "no such key: 'a.b.c'"), json: false)
        #expect(status == .notFound)
        #expect(errors == "settingsctl: no such key: 'a.b.c'\n")
    }

    @Test("a module or key named with a line break is shown with \\n: no name prints a line of its own")
    func namesOnOneLine() {
        let module = CLIFailure(SettingsErrorViewModel.noSuchModule(module: "te\nst"))
        #expect(module.message == "no such module: 'te\\nst' (settingsctl modules lists them)")
        let key = CLIFailure(SettingsErrorViewModel.noSuchKey(key: "a.b\nsettingsctl: fake"))
        #expect(!key.message.contains("\n"), "\(key.message)")
    }

    @Test("a NoSuchModule that names the module's rejected schema file says so; without one, it reads as before")
    func rejectedSchemaFile() throws {
        let error = SettingsErrorViewModel.noSuchModule(module: "t", schemaFile: "/m/t\n.json")
        let read = try #require(SettingsErrorViewModel(errorName: error.errorName, parameters: error.parameters))
        #expect(read == error)
        #expect(
            CLIFailure(read).message
                == "no such module: 't'; its schema file /m/t\\n.json was rejected (settingsctl status says why)"
        )
        #expect(SettingsErrorViewModel.noSuchModule(module: "t").parameters == ["module": "t"])
    }
}
