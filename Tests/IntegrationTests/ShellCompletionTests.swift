import Foundation
import Testing

/// The bash completion script settingsctl generates, driven as bash drives it on TAB, against the real daemon.
/// Serialized: each test blocks a thread of the small cooperative pool while processes run.
@Suite("settingsctl's bash completion", .serialized)
struct ShellCompletionTests {
    /// The generated bash script, in a file, and the name of the function it registers for settingsctl.
    struct Script {
        var path: String
        var function: String
    }

    static func script(in directory: URL) throws -> Script {
        let settingsctl = DaemonHarness.binDirectory.appendingPathComponent("settingsctl").path
        let generated = DaemonHarness.run([settingsctl, "--generate-completion-script", "bash"])
        guard generated.status == 0 else { throw HarnessError("no bash completion script: \(generated)") }
        let registration = generated.stdout.split(separator: "\n").last { $0.hasPrefix("complete ") }
        guard let words = registration?.split(separator: " "), let flag = words.firstIndex(of: "-F"),
            flag + 1 < words.count
        else { throw HarnessError("the script registers no function with complete -F:\n\(generated.stdout)") }
        let path = directory.appendingPathComponent("settingsctl.bash").path
        try generated.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return Script(path: path, function: String(words[flag + 1]))
    }

    /// What the script puts in COMPREPLY when TAB is pressed at the end of `line`, with settingsctl on PATH.
    static func complete(_ line: String, script: Script, environment: [String: String] = [:]) -> CommandResult {
        let program = """
            source "$1"
            read -ra COMP_WORDS <<<"$2"
            [[ "$2" == *" " ]] && COMP_WORDS+=("")
            COMP_LINE="$2"
            COMP_POINT=${#COMP_LINE}
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            "$3" settingsctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var variables = ProcessInfo.processInfo.environment
        variables["PATH"] = DaemonHarness.binDirectory.path + ":" + (variables["PATH"] ?? "/usr/bin:/bin")
        variables.removeValue(forKey: "VIPER_SETTINGS_SOCKET")
        variables.merge(environment) { _, new in new }
        return DaemonHarness.run(
            ["/bin/bash", "--norc", "--noprofile", "-c", program, "bash", script.path, line, script.function],
            environment: variables
        )
    }

    static func replies(_ result: CommandResult) -> [String] {
        result.stdout.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    @Test("TAB completes keys, modules and values from the daemon named by --socket or VIPER_SETTINGS_SOCKET")
    func completesFromTheDaemon() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let script = try Self.script(in: daemon.root)
        let socket = ["VIPER_SETTINGS_SOCKET": daemon.socketPath]

        let key = Self.complete("settingsctl get network.proxy.p", script: script, environment: socket)
        #expect(key.status == 0, "\(key)")
        #expect(Self.replies(key) == ["network.proxy.port"], "\(key)")

        let option = Self.complete("settingsctl --socket \(daemon.socketPath) get network.proxy.p", script: script)
        #expect(Self.replies(option) == ["network.proxy.port"], "--socket on the line: \(option)")

        let module = Self.complete("settingsctl show ne", script: script, environment: socket)
        #expect(Self.replies(module) == ["network"], "\(module)")

        let uniqueModule = Self.replies(Self.complete("settingsctl explain netw", script: script, environment: socket))
        #expect(uniqueModule.contains("network.proxy.mode") && uniqueModule.contains("network.dns.cache"))

        let reset = Self.replies(Self.complete("settingsctl reset network", script: script, environment: socket))
        #expect(reset.contains("network") && reset.contains("network.proxy.port"), "\(reset)")

        let choices = Self.complete("settingsctl set network.proxy.mode ", script: script, environment: socket)
        #expect(Set(Self.replies(choices)) == ["none", "manual", "auto"], "\(choices)")

        let bool = Self.complete("settingsctl set network.dns.cache f", script: script, environment: socket)
        #expect(Self.replies(bool) == ["false"], "\(bool)")
        #expect(daemon.stop() == 0)
    }

    @Test("with no daemon, TAB completes to nothing and prints nothing")
    func silentWithoutDaemon() throws {
        let daemon = try DaemonHarness()
        let script = try Self.script(in: daemon.root)
        let absent = ["VIPER_SETTINGS_SOCKET": daemon.socketPath]
        for line in ["settingsctl get network.proxy.p", "settingsctl show ", "settingsctl set network.proxy.mode "] {
            let result = Self.complete(line, script: script, environment: absent)
            #expect(result.status == 0, "\(result)")
            #expect(Self.replies(result).isEmpty, "\(line): \(result)")
            #expect(result.stderr.isEmpty, "\(line): \(result)")
        }
    }
}
