import Foundation
import Glibc
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// The module catalog: every schema file of a directory, one bad file never stopping the others.
@Suite("ModuleCatalogLoader")
struct ModuleCatalogLoaderTests {
    let scratch = Scratch()

    static func schema(_ module: String, portDefault: Int = 3128) -> String {
        """
        {
          "module": "\(module)",
          "sections": [
            { "id": "proxy", "items": [
              { "id": "port", "type": "int", "range": [1, 65535], "default": \(portDefault) }
            ] }
          ]
        }
        """
    }

    @Test("good files load while a syntax error and a default out of range are reported with file, path and reason")
    func mixedDirectory() throws {
        try Files.write(Self.schema("network"), to: self.scratch.file("network.json"))
        try Files.write(Self.schema("display"), to: self.scratch.file("display.json"))
        try Files.write("{\n  \"module\": \"broken\",\n  \"sections\": [,]\n}", to: self.scratch.file("broken.json"))
        try Files.write(Self.schema("ranged", portDefault: 70000), to: self.scratch.file("ranged.json"))
        try Files.write("not a schema", to: self.scratch.file("README.md"))
        try Files.write("{", to: self.scratch.file(".network.json.swp.json"))

        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()

        #expect(catalog.schemas.map(\.name) == ["display", "network"])
        #expect(catalog.schemas.last?.item(at: "proxy.port")?.defaultValue == .int(3128))
        #expect(catalog.errors.count == 2)
        let syntax = try #require(catalog.errors.first)
        #expect(syntax.file == self.scratch.file("broken.json"))
        #expect(syntax.path == "$")
        #expect(syntax.reason.hasPrefix("line 3, column 16: "))
        let range = try #require(catalog.errors.last)
        #expect(range.file == self.scratch.file("ranged.json"))
        #expect(range.path == "$.sections[0].items[0].default")
        #expect(range.reason.contains("70000"))
        #expect(range.description.hasPrefix(self.scratch.file("ranged.json") + ": $.sections[0].items[0].default: "))
    }

    @Test("a default larger than max-value-size is an error of its schema, as a set of it would be refused")
    func defaultOverTheValueSize() throws {
        let schema = """
            {"module": "big", "sections": [{"id": "s", "items": [
              {"id": "small", "type": "string", "default": "abc"},
              {"id": "names", "type": "strings", "default": ["abcdef", "ghijkl"]}
            ]}]}
            """
        try Files.write(schema, to: self.scratch.file("big.json"))
        #expect(try ModuleCatalogLoader(directory: self.scratch.path, maxValueSize: 64).load().errors.isEmpty)
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path, maxValueSize: 8).load()
        #expect(catalog.schemas.isEmpty)
        let error = try #require(catalog.errors.first)
        #expect(error.path == "$.sections[0].items[1].default", "\(error)")
        #expect(error.reason.contains("more than the limit of 8 bytes (max-value-size)"), "\(error)")
    }

    @Test("a file whose module is not its file name is rejected")
    func mismatchedName() throws {
        try Files.write(Self.schema("display"), to: self.scratch.file("network.json"))
        try Files.write(Self.schema("power"), to: self.scratch.file("power.json"))
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.map(\.name) == ["power"])
        #expect(catalog.errors.count == 1)
        #expect(catalog.errors.first?.file == self.scratch.file("network.json"))
        #expect(catalog.errors.first?.path == "$.module")
        #expect(catalog.errors.first?.reason.contains("\"module\": \"network\"") == true)
    }

    @Test("a file whose name is no module id is told to be renamed, not to declare that name as its module")
    func fileNameNotAnID() throws {
        try Files.write(Self.schema("t"), to: self.scratch.file("t copy.json"))
        try Files.write(Self.schema("t"), to: self.scratch.file("\u{FC}.json"))
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.isEmpty)
        #expect(catalog.errors.map(\.file) == [self.scratch.file("t copy.json"), self.scratch.file("\u{FC}.json")])
        for (error, name) in zip(catalog.errors, ["t copy.json", "\u{FC}.json"]) {
            #expect(error.path == "$")
            #expect(
                error.reason
                    == "the file name '\(name)' is not a module id followed by .json (an id is 1 to 128 ASCII "
                    + "letters, digits, '-' and '_', starting with a letter): rename the file to t.json, after the "
                    + "module it declares"
            )
            #expect(!error.reason.contains("must declare"))
        }
    }

    @Test("an unreadable file is reported and the others load")
    func unreadableFile() throws {
        try Files.write(Self.schema("network"), to: self.scratch.file("network.json"))
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("folder.json"),
            withIntermediateDirectories: false
        )
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.map(\.name) == ["network"])
        #expect(catalog.errors.first?.file == self.scratch.file("folder.json"))
        #expect(catalog.errors.first?.reason == "cannot read the file: it is a directory, not a regular file")
    }

    @Test("a symbolic link to nothing is reported as one, naming its target; the others load")
    func danglingLink() throws {
        try Files.write(Self.schema("network"), to: self.scratch.file("network.json"))
        try #require(symlink("/nonexistent/x.json", self.scratch.file("gone.json")) == 0)
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.map(\.name) == ["network"])
        #expect(catalog.errors.first?.file == self.scratch.file("gone.json"))
        #expect(
            catalog.errors.first?.reason == "the file is a symbolic link to /nonexistent/x.json, which does not exist"
        )
    }

    @Test("a FIFO is refused without waiting for a writer, and the other files load")
    func fifo() async throws {
        try Files.write(Self.schema("network"), to: self.scratch.file("network.json"))
        try #require(mkfifo(self.scratch.file("fifo.json"), 0o644) == 0)
        let directory = self.scratch.path
        // Opening a FIFO that has no writer blocks forever: bounded, so that a regression fails instead of hanging.
        let loaded = try await BlockingCall.result(within: 60) { try ModuleCatalogLoader(directory: directory).load() }
        let catalog = try #require(loaded, "reading a directory holding a FIFO did not end within 60 s")
        #expect(catalog.schemas.map(\.name) == ["network"])
        #expect(catalog.errors.count == 1)
        #expect(catalog.errors.first?.file == self.scratch.file("fifo.json"))
        #expect(catalog.errors.first?.path == "$")
        #expect(catalog.errors.first?.reason == "cannot read the file: it is a FIFO, not a regular file")
    }

    @Test("a schema file larger than 16 MiB is refused without being read to its end; the other files load")
    func oversizedFile() throws {
        try Files.write(Self.schema("network"), to: self.scratch.file("network.json"))
        // A sparse file: 1 TiB, which reading whole would exhaust memory.
        let huge = self.scratch.file("huge.json")
        try Files.write("{", to: huge)
        try #require(truncate(huge, 1 << 40) == 0)
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.map(\.name) == ["network"])
        #expect(catalog.errors.first?.file == huge)
        #expect(catalog.errors.first?.reason == "the file is larger than 16 MiB, the most a schema file may hold")
    }

    @Test("a symbolic link to a schema is read, as before")
    func symbolicLink() throws {
        let modules = self.scratch.file("modules")
        try Files.write(Self.schema("network"), to: self.scratch.file("shared/network.json"))
        try FileManager.default.createDirectory(atPath: modules, withIntermediateDirectories: false)
        try #require(symlink(self.scratch.file("shared/network.json"), "\(modules)/network.json") == 0)
        let catalog = try ModuleCatalogLoader(directory: modules).load()
        #expect(catalog.schemas.map(\.name) == ["network"])
        #expect(catalog.errors.isEmpty)
    }

    @Test("a module id too long for its state files to be named is rejected at load, naming the limit")
    func longModuleID() throws {
        let name = "m" + String(repeating: "x", count: 245)
        try Files.write(Self.schema(name), to: self.scratch.file("\(name).json"))
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path).load()
        #expect(catalog.schemas.isEmpty)
        #expect(catalog.errors.first?.path == "$.module")
        #expect(catalog.errors.first?.reason.contains("246 characters long, more than the 128 allowed") == true)
    }

    @Test("a missing directory is an error naming it")
    func missingDirectory() throws {
        let missing = self.scratch.file("nowhere")
        let error = #expect(throws: StorageError.self) { try ModuleCatalogLoader(directory: missing).load() }
        #expect(error?.message.contains(missing) == true)
        #expect(error?.message.contains("No such file or directory") == true)
    }

    @Test("the project's own schemas load without errors")
    func projectSchemas() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/modules").path
        let catalog = try ModuleCatalogLoader(directory: directory).load()
        #expect(catalog.errors.isEmpty, "\(catalog.errors)")
        #expect(!catalog.schemas.isEmpty)
    }

    @Test(
        "the bundled DNS servers and bypass hosts take what systemd-resolved and no_proxy read, nothing that splits or expands"
    )
    func bundledListPatterns() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/modules").path
        let network = try #require(
            try ModuleCatalogLoader(directory: directory).load().schemas.first { $0.name == "network" }
        )
        let servers = try #require(network.entry(at: "dns.servers")?.item.type)
        // resolved.conf(5)'s DNS=: an IPv4 or IPv6 address, with :PORT (an IPv6 address in brackets then), %IFNAME
        // and #SERVER-NAME, in that order.
        for good in [
            "1.1.1.1", "1.1.1.1:53", "2606:4700::1111", "[2606:4700::1111]:853", "fe80::1%eth0",
            "9.9.9.9#dns.quad9.net", "::1", "::", "[::1]:53", "0.0.0.0", "255.255.255.255", "1.1.1.1:65535",
            "1:2:3:4:5:6:7:8", "1::", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "::ffff:192.0.2.1",
            "1:2:3:4:5:6:192.0.2.1", "[::ffff:192.0.2.1]:53", "FE80::A%2", "2001:db8::1:53",
            "[fe80::1]:853%eth0#dns.example", "192.0.2.1:853%eth0#dns.example",
        ] {
            #expect(throws: Never.self, "\(good)") { try servers.value(fromJSON: [.string(good)]) }
        }
        // What systemd-resolved refuses ("Failed to add DNS server address 'cafe', ignoring: Invalid argument").
        for bad in [
            "1.1.1.1 8.8.8.8", "#x", "not-an-ip", "1.1.1.1;rm", "", "cafe", "...", ":", ":::", "1.1.1", "1.1.1.1.1",
            "256.1.1.1", "01.1.1.1", "1.1.1.1:0", "1.1.1.1:65536", "1.1.1.1:", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
            "1::2::3", "12345::", "1:2:3:4:5:6::7:8", "1:2:3:4:5:6::192.0.2.1", "::256.1.1.1", "[::1]", "[::1]:",
            "[1.1.1.1]:53", "[::1", "::1]", "[::1]]:53", "[::1%eth0]:53", "fe80::1%", "1.1.1.1#", "::g",
        ] {
            #expect(throws: ValueRejection.self, "\(bad)") { try servers.value(fromJSON: [.string(bad)]) }
        }
        let hosts = try #require(network.entry(at: "proxy.ignore-hosts")?.item.type)
        for good in ["localhost", "127.0.0.0/8", "::1", "[::1]", "*.example.com", ".example.com", "intra_net-1"] {
            #expect(throws: Never.self, "\(good)") { try hosts.value(fromJSON: [.string(good)]) }
        }
        for bad in ["a b", "$HOME", "a,b", "\"quoted\"", ""] {
            #expect(throws: ValueRejection.self, "\(bad)") { try hosts.value(fromJSON: [.string(bad)]) }
        }
    }
}
