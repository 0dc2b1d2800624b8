import Glibc
public import NIOPosix
import ViperPOSIX

/// What a command did: its exit status (128 + the signal's number when a signal ended it) and the end of what it
/// wrote on standard error.
public struct CommandResult: Sendable, Equatable {
    public var status: Int32
    public var stderr: String

    public init(status: Int32, stderr: String) {
        self.status = status
        self.stderr = stderr
    }

    public var succeeded: Bool { self.status == 0 }
}

/// Runs check and reload commands.
public protocol CommandRunning: Sendable {
    /// Runs `command` (the program, found on `PATH`, then its arguments) to its end.
    func run(_ command: [String]) async throws(ApplyError) -> CommandResult
}

/// Runs commands with `posix_spawnp`: standard input and output are `/dev/null`, standard error is kept (its last
/// 4 KiB), signals are reset to their defaults and unblocked, and a command still running after `timeoutSeconds`
/// is killed (status 137). The wait happens on NIO's thread pool, not on the caller's.
public struct CommandRunner: CommandRunning {
    public var timeoutSeconds: Int
    public var threadPool: NIOThreadPool

    public init(timeoutSeconds: Int = 60, threadPool: NIOThreadPool = .singleton) {
        self.timeoutSeconds = timeoutSeconds
        self.threadPool = threadPool
    }

    public func run(_ command: [String]) async throws(ApplyError) -> CommandResult {
        let timeout = self.timeoutSeconds
        let outcome: Result<CommandResult, ApplyError>
        do {
            outcome = try await self.threadPool.runIfActive { Self.runBlocking(command, timeoutSeconds: timeout) }
        } catch {
            throw .command(command: command.joined(separator: " "), reason: "the thread pool is shutting down")
        }
        return try outcome.get()
    }

    static func runBlocking(_ command: [String], timeoutSeconds: Int) -> Result<CommandResult, ApplyError> {
        let shown = command.joined(separator: " ")
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            return .failure(.command(command: shown, reason: String(cString: strerror(errno))))
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid = pid_t()
        let arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = posix_spawnp(&pid, command[0], &actions, &attributes, arguments, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            return .failure(.command(command: shown, reason: String(cString: strerror(spawned))))
        }

        var stderr: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicDeadline(secondsFromNow: timeoutSeconds)
        var killed = false
        while true {
            var request = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let left = deadline.millisecondsLeft
            if left <= 0 && !killed {
                kill(pid, SIGKILL)
                killed = true
            }
            let ready = poll(&request, 1, killed ? 1000 : Int32(min(left, 60_000)))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                if killed { break }  // a grandchild keeps the pipe open: stop reading
                continue
            }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            stderr.append(contentsOf: buffer[0..<count])
            if stderr.count > 4096 { stderr.removeFirst(stderr.count - 4096) }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        var text = String(decoding: stderr, as: UTF8.self)
        if killed { text += (text.isEmpty ? "" : "\n") + "killed after \(timeoutSeconds) s" }
        return .success(CommandResult(status: exit, stderr: text.trimmingSuffixWhitespace()))
    }
}

extension String {
    func trimmingSuffixWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
