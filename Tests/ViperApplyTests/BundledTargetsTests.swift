import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// The targets bundled in config/apply.d: they load, render the lines a user expects from the schema defaults and
/// from other values, and the programs that read the files accept what they render.
@Suite("Bundled targets")
struct BundledTargetsTests {
    /// The package's root, found from this file's path (Tests/ViperApplyTests/this file).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let targetsDirectory = Self.packageRoot + "/config/apply.d"
    static let modulesDirectory = Self.packageRoot + "/config/modules"
    static let revisions: [String: Int64] = ["network": 7, "power": 11, "updates": 3, "locale": 5]
    static let names = ["apt-periodic", "apt-proxy", "locale", "logind", "proxy-environment", "resolved"]

    struct TestError: Error, CustomStringConvertible {
        var description: String
    }

    /// An item of a bundled schema: its default and, for a string with choices, the choices.
    struct SchemaItem {
        var value: JSONValue
        var choices: [String]
    }

    /// Every item of config/modules/*.json, keyed `module.section.item`.
    static func schemaItems() throws -> [String: SchemaItem] {
        var items: [String: SchemaItem] = [:]
        for name in Files.list(Self.modulesDirectory) where name.hasSuffix(".json") {
            let document = try JSONValue(parsing: try Files.read(Self.modulesDirectory + "/" + name))
            guard let module = document["module"]?.stringValue, let sections = document["sections"]?.arrayValue else {
                throw TestError(description: "\(name): no module or sections")
            }
            for section in sections {
                guard let sectionID = section["id"]?.stringValue else {
                    throw TestError(description: "\(name): section")
                }
                for item in section["items"]?.arrayValue ?? [] {
                    guard let itemID = item["id"]?.stringValue, let value = item["default"] else {
                        throw TestError(description: "\(name): item of \(sectionID) without id or default")
                    }
                    let choices = item["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    items["\(module).\(sectionID).\(itemID)"] = SchemaItem(value: value, choices: choices)
                }
            }
        }
        return items
    }

    /// The schema defaults with `changes` over them; a change must name a key of the schemas.
    static func values(_ changes: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        var values = try Self.schemaItems().mapValues(\.value)
        for (key, value) in changes {
            guard values[key] != nil else { throw TestError(description: "\(key) is not a key of the bundled schemas") }
            values[key] = value
        }
        return values
    }

    /// Commands run as the applier runs them: in the targets directory.
    static let commands = CommandRunner(workingDirectory: targetsDirectory)

    static func target(_ name: String, root: String = "") throws -> ApplyTarget {
        try ApplyTargetLoader(directory: Self.targetsDirectory, root: root)
            .load(path: Self.targetsDirectory + "/" + name + ".json", name: name)
    }

    static func render(_ name: String, _ changes: [String: JSONValue] = [:]) throws -> String {
        try TargetRenderer().render(try Self.target(name), values: try Self.values(changes), revisions: Self.revisions)
    }

    /// The lines of `text` that are neither blank nor comments (`#`, or `//` for apt).
    static func settings(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && !trimmed.hasPrefix("#") && !trimmed.hasPrefix("//")
        }
    }

    static let manualProxy: [String: JSONValue] = [
        "network.proxy.mode": "manual", "network.proxy.host": "proxy.example", "network.proxy.port": 3128,
    ]
    static let customUpdates: [String: JSONValue] = [
        "updates.policy.automatic": false, "updates.policy.reboot": "never", "updates.policy.check-interval": 6,
        "updates.window.bandwidth-limit": 512, "updates.window.start": "22:30",
    ]

    // MARK: Loading

    @Test("every target of config/apply.d loads, with the real Debian destinations, checks and reloads")
    func allTargetsLoad() throws {
        let result = try ApplyTargetLoader(directory: Self.targetsDirectory).load()
        #expect(result.problems.isEmpty, "\(result.problems)")
        let destinations = Dictionary(uniqueKeysWithValues: result.targets.map { ($0.name, $0.destination) })
        #expect(
            destinations == [
                "apt-periodic": "/etc/apt/apt.conf.d/52viper-periodic",
                "apt-proxy": "/etc/apt/apt.conf.d/50viper-proxy",
                "locale": "/etc/default/locale",
                "logind": "/etc/systemd/logind.conf.d/50-viper.conf",
                "proxy-environment": "/etc/environment.d/50-viper-proxy.conf",
                "resolved": "/etc/systemd/resolved.conf.d/50-viper.conf",
            ]
        )
        let keys = try Self.schemaItems().keys
        for target in result.targets {
            #expect(target.owner == 0 && target.group == 0 && target.mode == 0o644, "\(target.name)")
            for read in target.reads {
                #expect(keys.contains { $0 == read || $0.hasPrefix(read + ".") }, "\(target.name) reads \(read)")
            }
            // Every key or section its template names exists and is read (the applier warns otherwise).
            let modules = Set(keys.map { String($0.prefix { $0 != "." }) })
            for name in target.templateNames where modules.contains(String(name.prefix { $0 != "." })) {
                #expect(keys.contains { $0 == name || $0.hasPrefix(name + ".") }, "\(target.name) names \(name)")
                #expect(target.reads(key: name), "\(target.name) names \(name) outside its reads")
            }
            #expect(!target.templateNames.isEmpty, "\(target.name)")
            // And the converse: every key it reads is used by its template (`is.KEY.CHOICE` uses KEY). A key read
            // but not used (a section read whole) re-renders the target when it changes, with only the revision
            // in its header changed: the file is rewritten and the service reloaded for nothing.
            let used = target.templateNames.map { TemplateNames.choiceKey($0) ?? $0 }
            for key in keys where target.reads(key: key) {
                #expect(used.contains { key == $0 || key.hasPrefix($0 + ".") }, "\(target.name) reads \(key) unused")
            }
        }
        let byName = Dictionary(uniqueKeysWithValues: result.targets.map { ($0.name, $0) })
        for name in ["apt-proxy", "apt-periodic"] {
            #expect(
                byName[name]?.checkCommand(for: "/tmp/x")
                    == ["env", "APT_CONFIG=apt-check.conf", "apt-config", "-c", "/tmp/x", "dump"]
            )
        }
        // systemd-resolved is not installed by default on Debian 12: without the unit there is nothing to reload.
        let resolvedReload = byName["resolved"]?.reload?.last ?? ""
        #expect(resolvedReload.hasPrefix("systemctl cat systemd-resolved.service >/dev/null 2>&1 || exit 0;"))
        #expect(resolvedReload.hasSuffix("exec systemctl try-reload-or-restart systemd-resolved.service"))
        #expect(byName["logind"]?.reload == ["systemctl", "try-reload-or-restart", "systemd-logind"])
        #expect(byName["locale"]?.reload == nil)
        #expect(byName["proxy-environment"]?.reload == nil)
    }

    @Test("every rendering starts with a comment naming the applier, the modules and their revisions", arguments: names)
    func header(name: String) throws {
        let target = try Self.target(name)
        let rendered = try Self.render(name)
        let comment = name.hasPrefix("apt-") ? "//" : "#"
        let first = try #require(rendered.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix(comment))
        #expect(first.contains("viper-settings-apply"))
        for module in target.modules {
            #expect(first.contains("module \(module) (revision \(Self.revisions[module] ?? -1))"), "\(first)")
        }
        let second = rendered.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        #expect(second.hasPrefix(comment) && second.contains("Edits here are overwritten"), "\(second)")
        #expect(rendered.hasSuffix("\n"))
        #expect(!rendered.contains("{{") && !rendered.contains("}}"))
    }

    // MARK: Rendering

    @Test("resolved: the defaults set DNSSEC and the cache and leave the servers to DHCP")
    func resolvedDefaults() throws {
        let rendered = try Self.render("resolved")
        #expect(Self.settings(rendered) == ["[Resolve]", "DNSSEC=allow-downgrade", "Cache=yes"])
    }

    @Test("resolved: servers are one DNS= line routed for every domain; DNSSEC and Cache follow the settings")
    func resolvedServers() throws {
        let rendered = try Self.render(
            "resolved",
            ["network.dns.servers": ["9.9.9.9", "1.1.1.1"], "network.dns.dnssec": "yes", "network.dns.cache": false]
        )
        #expect(
            Self.settings(rendered) == ["[Resolve]", "DNS=9.9.9.9 1.1.1.1", "Domains=~.", "DNSSEC=yes", "Cache=no"]
        )
        let single = try Self.render("resolved", ["network.dns.servers": ["2620:fe::fe"], "network.dns.dnssec": "no"])
        #expect(Self.settings(single) == ["[Resolve]", "DNS=2620:fe::fe", "Domains=~.", "DNSSEC=no", "Cache=yes"])
    }

    @Test("logind: the defaults power off on the power key (ask), suspend on lid close and after 1800 s idle")
    func logindDefaults() throws {
        let rendered = try Self.render("logind")
        #expect(
            Self.settings(rendered) == [
                "[Login]", "HandlePowerKey=poweroff", "HandleLidSwitch=suspend", "IdleAction=suspend",
                "IdleActionSec=1800s",
            ]
        )
    }

    @Test("logind: other choices map onto logind's values; suspend-after 0 never suspends")
    func logindChoices() throws {
        let rendered = try Self.render(
            "logind",
            [
                "power.buttons.power-button": "hibernate", "power.buttons.lid-close": "ignore",
                "power.idle.suspend-after": 0,
            ]
        )
        #expect(
            Self.settings(rendered) == [
                "[Login]", "HandlePowerKey=hibernate", "HandleLidSwitch=ignore", "IdleAction=ignore",
            ]
        )
        let lock = try Self.render(
            "logind",
            ["power.buttons.power-button": "ignore", "power.buttons.lid-close": "lock", "power.idle.suspend-after": 90]
        )
        #expect(
            Self.settings(lock) == [
                "[Login]", "HandlePowerKey=ignore", "HandleLidSwitch=lock", "IdleAction=suspend", "IdleActionSec=90s",
            ]
        )
    }

    @Test("proxy-environment: manual mode sets the lower- and upper-case variables and the bypass list")
    func proxyEnvironmentManual() throws {
        let rendered = try Self.render("proxy-environment", Self.manualProxy)
        #expect(
            Self.settings(rendered) == [
                "http_proxy=http://proxy.example:3128/",
                "https_proxy=http://proxy.example:3128/",
                "ftp_proxy=http://proxy.example:3128/",
                "HTTP_PROXY=http://proxy.example:3128/",
                "HTTPS_PROXY=http://proxy.example:3128/",
                "FTP_PROXY=http://proxy.example:3128/",
                "no_proxy=localhost,127.0.0.0/8,::1",
                "NO_PROXY=localhost,127.0.0.0/8,::1",
            ]
        )
        var noBypass = Self.manualProxy
        noBypass["network.proxy.ignore-hosts"] = []
        noBypass["network.proxy.port"] = 8080
        let settings = Self.settings(try Self.render("proxy-environment", noBypass))
        #expect(settings.count == 6)
        #expect(settings.contains("https_proxy=http://proxy.example:8080/"))
        #expect(!settings.contains { $0.lowercased().hasPrefix("no_proxy=") })
    }

    @Test("proxy-environment: none, auto and manual without a host set nothing and say why")
    func proxyEnvironmentOtherModes() throws {
        let none = try Self.render("proxy-environment")
        #expect(Self.settings(none).isEmpty)
        #expect(none.contains("# The proxy mode is none: no proxy is set."))
        let auto = try Self.render(
            "proxy-environment",
            ["network.proxy.mode": "auto", "network.proxy.autoconfig-url": "http://wpad.example/proxy.pac"]
        )
        #expect(Self.settings(auto).isEmpty)
        #expect(auto.contains("no environment variable") && auto.contains("PAC"))
        #expect(!auto.contains("wpad.example"))
        let noHost = try Self.render("proxy-environment", ["network.proxy.mode": "manual"])
        #expect(Self.settings(noHost).isEmpty)
        #expect(noHost.contains("network.proxy.host is empty"))
    }

    @Test("apt-proxy: manual mode sets the http and https proxies; other modes only comment")
    func aptProxy() throws {
        let manual = try Self.render("apt-proxy", Self.manualProxy)
        #expect(
            Self.settings(manual) == [
                "Acquire::http::Proxy \"http://proxy.example:3128/\";",
                "Acquire::https::Proxy \"http://proxy.example:3128/\";",
            ]
        )
        #expect(Self.settings(try Self.render("apt-proxy")).isEmpty)
        let auto = try Self.render("apt-proxy", ["network.proxy.mode": "auto"])
        #expect(Self.settings(auto).isEmpty)
        #expect(auto.contains("cannot read a proxy autoconfiguration (PAC) file"))
        #expect(Self.settings(try Self.render("apt-proxy", ["network.proxy.mode": "manual"])).isEmpty)
    }

    @Test("apt-periodic: the defaults refresh and upgrade every 24 h, reboot when needed at 03:00, no limit")
    func aptPeriodicDefaults() throws {
        let rendered = try Self.render("apt-periodic")
        #expect(
            Self.settings(rendered) == [
                "APT::Periodic::Update-Package-Lists \"24h\";",
                "APT::Periodic::Unattended-Upgrade \"24h\";",
                "Unattended-Upgrade::Automatic-Reboot \"true\";",
                "Unattended-Upgrade::Automatic-Reboot-Time \"03:00\";",
            ]
        )
    }

    @Test("apt-periodic: no automatic install, never reboot, a bandwidth limit; always reboots too")
    func aptPeriodicCustom() throws {
        let rendered = try Self.render("apt-periodic", Self.customUpdates)
        #expect(
            Self.settings(rendered) == [
                "APT::Periodic::Update-Package-Lists \"6h\";",
                "APT::Periodic::Unattended-Upgrade \"0\";",
                "Unattended-Upgrade::Automatic-Reboot \"false\";",
                "Unattended-Upgrade::Automatic-Reboot-Time \"22:30\";",
                "Acquire::http::Dl-Limit \"512\";",
            ]
        )
        let always = try Self.render("apt-periodic", ["updates.policy.reboot": "always"])
        #expect(Self.settings(always).contains("Unattended-Upgrade::Automatic-Reboot \"true\";"))
    }

    @Test("locale: LANG from locale.language.lang")
    func locale() throws {
        #expect(Self.settings(try Self.render("locale")) == ["LANG=C.UTF-8"])
        #expect(
            Self.settings(try Self.render("locale", ["locale.language.lang": "de_DE.UTF-8"])) == ["LANG=de_DE.UTF-8"]
        )
    }

    /// For every key a target reads that has choices, every choice renders a file its program accepts: no choice is
    /// left without a mapping.
    @Test("every choice of every key read renders a valid file", arguments: names)
    func everyChoice(name: String) async throws {
        let target = try Self.target(name)
        let items = try Self.schemaItems()
        let filled: [String: JSONValue] = Self.manualProxy.merging(["network.dns.servers": ["9.9.9.9"]]) { $1 }
        for (key, item) in items.sorted(by: { $0.key < $1.key }) where target.reads(key: key) {
            for choice in item.choices {
                for base in [[:], filled] {
                    var changes = base.filter { target.reads(key: $0.key) }
                    changes[key] = .string(choice)
                    let rendered = try Self.render(name, changes)
                    let problems = try await Self.problems(of: name, rendered: rendered)
                    #expect(problems.isEmpty, "\(key)=\(choice): \(problems)\n\(rendered)")
                }
            }
        }
    }

    // MARK: The programs that read the files

    @Test("apt targets pass their check (apt-config) in a dry run, and apt-config reads the values back")
    func aptCheck() async throws {
        let cases: [(String, [String: JSONValue], [String])] = [
            (
                "apt-proxy", Self.manualProxy,
                [
                    "Acquire::http::Proxy \"http://proxy.example:3128/\";",
                    "Acquire::https::Proxy \"http://proxy.example:3128/\";",
                ]
            ),
            ("apt-proxy", [:], []),
            (
                "apt-periodic", [:],
                [
                    "APT::Periodic::Update-Package-Lists \"24h\";", "APT::Periodic::Unattended-Upgrade \"24h\";",
                    "Unattended-Upgrade::Automatic-Reboot \"true\";",
                    "Unattended-Upgrade::Automatic-Reboot-Time \"03:00\";",
                ]
            ),
            (
                "apt-periodic", Self.customUpdates,
                [
                    "APT::Periodic::Update-Package-Lists \"6h\";", "APT::Periodic::Unattended-Upgrade \"0\";",
                    "Unattended-Upgrade::Automatic-Reboot \"false\";", "Acquire::http::Dl-Limit \"512\";",
                ]
            ),
        ]
        for (name, changes, expected) in cases {
            try await TemporaryDirectory.with { directory in
                let target = try Self.target(name, root: directory + "/root")
                let rendered = try Self.render(name, changes)
                let applier = FileApplier(commands: Self.commands, scratchDirectory: directory)
                let outcome = await applier.apply(target, rendered: rendered, dryRun: true)
                #expect(outcome.result == .wouldWrite, "\(name): \(outcome.error ?? "") \(outcome.check?.stderr ?? "")")
                #expect(outcome.check?.status == 0)
                // Run in the targets directory, as the applier runs it: apt-check.conf is found, apt warns of nothing.
                #expect(outcome.check?.stderr == "", "\(name): \(outcome.check?.stderr ?? "")")
                #expect(!Files.exists(target.destination))

                let file = directory + "/" + name
                try Files.write(rendered, to: file)
                let dump = try Self.run(["apt-config", "-c", file, "dump"])
                #expect(dump.status == 0, "\(dump.output)")
                let lines = Set(dump.output.split(separator: "\n").map(String.init))
                for line in expected {
                    #expect(lines.contains(line), "\(name): apt-config dump lacks \(line)")
                }
            }
        }
    }

    @Test("README's example target loads beside the bundled template, renders and passes its check")
    func readmeExample() async throws {
        let readme = try Files.read(Self.packageRoot + "/README.md")
        let section = try #require(
            readme.components(separatedBy: "## Applying settings to the system").dropFirst().first
        )
        let blocks = section.components(separatedBy: "```json\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        let examples = blocks.filter { $0.contains("\"destination\"") }
        #expect(examples.count == 1, "\(blocks)")
        for example in examples {
            try await TemporaryDirectory.with { directory in
                let targets = directory + "/apply.d"
                try Files.write(example, to: targets + "/example.json")
                let fields = try JSONValue(parsing: Array(example.utf8))
                let template = try #require(fields["template"]?.stringValue)
                try Files.write(try Files.read(Self.targetsDirectory + "/" + template), to: targets + "/" + template)
                let loaded = try ApplyTargetLoader(directory: targets, root: directory + "/root").load()
                #expect(loaded.problems.isEmpty, "\(loaded.problems)")
                let target = try #require(loaded.targets.first)
                #expect(target.check != nil && target.reload != nil, "the example shows every field")
                for changes: [String: JSONValue] in [[:], ["network.dns.servers": ["9.9.9.9", "1.1.1.1"]]] {
                    let rendered = try TargetRenderer().render(
                        target,
                        values: try Self.values(changes),
                        revisions: Self.revisions
                    )
                    let outcome = await FileApplier(commands: Self.commands, scratchDirectory: directory)
                        .apply(target, rendered: rendered, dryRun: true)
                    #expect(outcome.result == .wouldWrite, "\(outcome.error ?? "") \(outcome.check?.stderr ?? "")")
                    #expect(outcome.check?.status == 0)
                }
            }
        }
    }

    @Test("the apt check refuses a file apt cannot parse, in a dry run")
    func aptCheckRefuses() async throws {
        try await TemporaryDirectory.with { directory in
            let target = try Self.target("apt-proxy", root: directory + "/root")
            let applier = FileApplier(commands: Self.commands, scratchDirectory: directory)
            let outcome = await applier.apply(target, rendered: "Acquire::http::Proxy \"unterminated\n", dryRun: true)
            #expect(outcome.result == .checkFailed)
            #expect(outcome.check.map { $0.status != 0 } == true)
        }
    }

    /// apt-config reads the system's apt.conf and apt.conf.d/ before the file it is given: a broken file there (a
    /// hand-edited copy of the very file being replaced) would fail every check, and the target could never repair
    /// it. The check reads the rendered file alone (apt-check.conf): the system's configuration is stood in for by
    /// `APT_CONFIG` in the check's environment, naming a parts folder with a broken file.
    @Test("the apt check reads the rendered file alone: a broken file among the system's apt parts does not fail it")
    func aptCheckIgnoresSystemParts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let parts = directory.path + "/apt.conf.d"
        try Files.write("tampered\n", to: parts + "/52viper-periodic")
        try Files.write("Dir::Etc::Parts \"\(parts)\";\n", to: directory.path + "/system.conf")
        let system = ["env", "APT_CONFIG=" + directory.path + "/system.conf"]
        // As the system's apt sees it: the broken part fails any apt-config run.
        let good = directory.path + "/good"
        try Files.write(try Self.render("apt-periodic"), to: good)
        let plain = try Self.run(system + ["apt-config", "-c", good, "dump"], directory: Self.targetsDirectory)
        #expect(plain.status != 0 && plain.output.contains("52viper-periodic"), "\(plain.output)")
        for name in ["apt-periodic", "apt-proxy"] {
            let check = try #require(try Self.target(name).checkCommand(for: good))
            let passed = try Self.run(system + check, directory: Self.targetsDirectory)
            #expect(passed.status == 0, "\(name): \(passed.output)")
            #expect(!passed.output.contains("W: ") && !passed.output.contains("E: "), "\(name): \(passed.output)")
            // What apt cannot parse is still refused.
            let bad = directory.path + "/bad"
            try Files.write("Acquire::http::Proxy \"unterminated\n", to: bad)
            let refused = try Self.run(
                system + (try #require(try Self.target(name).checkCommand(for: bad))),
                directory: Self.targetsDirectory
            )
            #expect(refused.status == 100, "\(name): \(refused.output)")
            #expect(refused.output.contains(bad) && !refused.output.contains("52viper-periodic"), "\(refused.output)")
        }
    }

    @Test("resolved and logind drop-ins are where systemd looks: systemd-analyze cat-config shows them")
    func systemdCatConfig() throws {
        let cases: [(String, String, [String: JSONValue])] = [
            ("resolved", "systemd/resolved.conf", ["network.dns.servers": ["9.9.9.9", "1.1.1.1"]]),
            ("logind", "systemd/logind.conf", ["power.buttons.lid-close": "ignore"]),
        ]
        for (name, config, changes) in cases {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let target = try Self.target(name, root: directory.path)
            let rendered = try Self.render(name, changes)
            try Files.write(rendered, to: target.destination)
            let result = try Self.run(["systemd-analyze", "cat-config", "--root=" + directory.path, config])
            #expect(result.status == 0, "\(result.output)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.contains("# " + target.destination), "\(result.output)")
            for line in Self.settings(rendered) {
                #expect(lines.contains(line), "\(name): cat-config lacks \(line)")
            }
        }
        let resolved = try Self.render("resolved", cases[0].2)
        #expect(Self.settings(resolved).contains("DNS=9.9.9.9 1.1.1.1"))
        #expect(Self.settings(try Self.render("logind", cases[1].2)).contains("HandleLidSwitch=ignore"))
    }

    @Test("systemd's environment.d generator reads the proxy variables")
    func environmentGenerator() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = try Self.target("proxy-environment")
        let rendered = try Self.render("proxy-environment", Self.manualProxy)
        // The generator reads $XDG_CONFIG_HOME/environment.d/ before /etc/environment.d/.
        let file = directory.path + "/environment.d/" + (target.destination as NSString).lastPathComponent
        try Files.write(rendered, to: file)
        let result = try Self.run(
            [Self.environmentGenerator],
            environment: ["XDG_CONFIG_HOME": directory.path, "PATH": "/usr/bin:/bin"]
        )
        #expect(result.status == 0, "\(result.output)")
        let lines = Set(result.output.split(separator: "\n").map(String.init))
        for line in ["http_proxy=http://proxy.example:3128/", "NO_PROXY=localhost,127.0.0.0/8,::1"] {
            #expect(lines.contains(line), "the generator's environment lacks \(line): \(result.output)")
        }
    }

    @Test("/etc/default/locale sets LANG for a shell that sources it")
    func localeSourced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/locale"
        try Files.write(try Self.render("locale", ["locale.language.lang": "de_DE.UTF-8"]), to: file)
        let result = try Self.run(["sh", "-c", ". \"$1\" && printf %s \"$LANG\"", "sh", file], environment: [:])
        #expect(result.status == 0)
        #expect(result.output == "de_DE.UTF-8")
    }

    // MARK: Helpers

    static let environmentGenerator = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"

    static let logindActions: Set<String> = [
        "ignore", "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep",
        "suspend-then-hibernate", "lock",
    ]

    /// What is wrong with `rendered` for the program that reads target `name`'s file (empty when nothing is).
    static func problems(of name: String, rendered: String) async throws -> [String] {
        switch name {
        case "resolved":
            return Self.systemdProblems(
                rendered,
                section: "[Resolve]",
                keys: [
                    "DNS": { !$0.isEmpty }, "Domains": { $0 == "~." },
                    "DNSSEC": { ["yes", "no", "allow-downgrade"].contains($0) },
                    "Cache": { ["yes", "no", "no-negative"].contains($0) },
                ]
            )
        case "logind":
            return Self.systemdProblems(
                rendered,
                section: "[Login]",
                keys: [
                    "HandlePowerKey": { Self.logindActions.contains($0) },
                    "HandleLidSwitch": { Self.logindActions.contains($0) },
                    "IdleAction": { Self.logindActions.contains($0) },
                    "IdleActionSec": { $0.hasSuffix("s") && UInt($0.dropLast()) != nil },
                ]
            )
        case "apt-proxy", "apt-periodic":
            return try await TemporaryDirectory.with { directory in
                let target = try Self.target(name, root: directory + "/root")
                let outcome = await FileApplier(commands: Self.commands, scratchDirectory: directory)
                    .apply(target, rendered: rendered, dryRun: true)
                return outcome.result == .wouldWrite ? [] : ["apt-config: \(outcome.check?.stderr ?? "")"]
            }
        default:
            return Self.settings(rendered).compactMap { line in
                guard let equals = line.firstIndex(of: "="), line[..<equals].allSatisfy({ $0.isLetter || $0 == "_" })
                else { return "not NAME=VALUE: \(line)" }
                return line[line.index(after: equals)...].isEmpty ? "empty value: \(line)" : nil
            }
        }
    }

    /// Problems of a systemd configuration drop-in: one `section`, then `Key=value` lines with known keys, each once,
    /// with valid values.
    static func systemdProblems(_ text: String, section: String, keys: [String: (String) -> Bool]) -> [String] {
        var lines = Self.settings(text)
        guard lines.first == section else { return ["does not start with \(section)"] }
        lines.removeFirst()
        var seen: Set<String> = []
        return lines.compactMap { line in
            guard let equals = line.firstIndex(of: "=") else { return "not Key=value: \(line)" }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            guard let valid = keys[key] else { return "unknown key: \(line)" }
            guard seen.insert(key).inserted else { return "set twice: \(line)" }
            return valid(value) ? nil : "invalid value: \(line)"
        }
    }

    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs a command (found on `PATH`; in `directory`, when given) to its end; its standard output and error,
    /// together.
    static func run(
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: String? = nil
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = try ProcessStarts.serialized {
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.runAlone()
            return pipe
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
