import SettingsCLI
import SettingsCLICore
import Testing

@Suite("FastPathParser agrees with ArgumentParser")
struct FastPathParserTests {
    /// What a parsed command stands for: its name, global options and positional values.
    static func summary(_ command: Any) -> [String]? {
        let values: [String]
        let global: GlobalOptions
        switch command {
        case let command as ModulesCommand: (values, global) = (["modules"], command.global)
        case let command as ShowCommand:
            (values, global) = (["show"] + [command.module].compactMap { $0 }, command.global)
        case let command as GetCommand: (values, global) = (["get", command.key], command.global)
        case let command as SetCommand: (values, global) = (["set", command.key, command.value], command.global)
        case let command as ResetCommand: (values, global) = (["reset", command.target], command.global)
        case let command as ExplainCommand: (values, global) = (["explain", command.key], command.global)
        default: return nil
        }
        return values + ["json=\(global.json)", "socket=\(global.socket ?? "-")"]
    }

    @Test(
        "reads the common command lines exactly as ArgumentParser does",
        arguments: [
            ["modules"], ["get", "network.proxy.port"], ["--json", "get", "k"], ["get", "k", "--json"],
            ["--socket", "/tmp/s", "show", "network"], ["show", "network", "--socket=/tmp/s"], ["show"],
            ["--json", "show"],
            ["set", "network.proxy.port", "8080"], ["set", "updates.policy.channels", "stable,beta", "--json"],
            ["--json", "--socket", "/x", "explain", "k"], ["reset", "network"], ["set", "k", "a value with spaces"],
            ["set", "k", "-5"], ["set", "display.output.scale", "-0.5", "--json"], ["set", "k", "-0x5"],
            ["set", "k", "-inf"], ["set", "k", "-NaN"], ["set", "k", "-1 "], ["set", "k", "-1e3"],
        ]
    )
    func agrees(arguments: [String]) throws {
        let fast = try #require(FastPathParser.command(arguments))
        let parsed = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
        #expect(Self.summary(fast) != nil)
        #expect(Self.summary(fast) == Self.summary(parsed))
    }

    @Test(
        "leaves everything else to ArgumentParser",
        arguments: [
            [], ["--help"], ["-h"], ["--version"], ["help", "get"], ["get", "--help"], ["get"], ["get", "a", "b"],
            ["set", "k", "--", "-5"], ["set", "k", "-x"], ["--json", "--json", "modules"], ["--socket"],
            ["--socket", "", "modules"], ["--socket=", "modules"], ["--socket", "/a", "--socket", "/b", "modules"],
            ["bogus"], ["modules", "extra"], ["--frobnicate", "modules"], ["--generate-completion-script", "bash"],
        ]
    )
    func fallsBack(arguments: [String]) {
        #expect(FastPathParser.command(arguments) == nil)
    }

    @Test("a minus in front of what the daemon refuses as a number (hexadecimal, inf, nan) is a value, not an option")
    func negativeNumbers() {
        for value in ["-1", "-0.5", "-1e3", "-0x50", "-inf", "-Infinity", "-nan", "-1 ", "-.5"] {
            #expect(FastPathParser.isNegativeNumber(value), "\(value)")
        }
        for option in ["-x", "--json", "-", "-h", "-infx", "- 1", "-e5"] {
            #expect(!FastPathParser.isNegativeNumber(option), "\(option)")
        }
    }
}
