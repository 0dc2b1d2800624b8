import Glibc
public import NIOPosix
import SettingsAPI
import ViperPOSIX

/// What a command did: its exit status (128 + the signal's number when a signal ended it) and the end of what it
/// wrote on standard error.
public struct CommandResult: Sendable, Equatable {
    public var status: Int32
    public var stderr: String
    /// The signal that ended the command, when one did (its `status` is then 128 + its number).
    public var signal: Int32?

    public init(status: Int32, stderr: String, signal: Int32? = nil) {
        self.status = status
        self.stderr = stderr
        self.signal = signal
    }

    public var succeeded: Bool { self.status == 0 }

    /// How the command ended, after its name (``SettingsAPI/CommandResultViewModel/ending``).
    public var ending: String {
        CommandResultViewModel(status: self.status, stderr: self.stderr, signal: self.signal).ending
    }
}

/// Runs check and reload commands.
public protocol CommandRunning: Sendable {
    /// Runs `command` (the program, found on `PATH`, then its arguments) to its end; with `killingLeftovers`, what
    /// it left running in its process group is killed (SIGKILL) once it exits.
    func run(_ command: [String], killingLeftovers: Bool) async throws(ApplyError) -> CommandResult
}

extension CommandRunning {
    /// Runs `command` to its end, leaving what it started in the background running (a reload may start a service).
    public func run(_ command: [String]) async throws(ApplyError) -> CommandResult {
        try await self.run(command, killingLeftovers: false)
    }
}

/// Runs commands with `posix_spawnp`: standard input and output are `/dev/null`, standard error is kept (its last
/// 4 KiB), no other descriptor of the applier is inherited, signals are reset to their defaults and unblocked, and
/// the command runs in a process group of its own, in `workingDirectory` when one is given. It ends when the command
/// exits, even if a process it started in the background still holds standard error (with `killingLeftovers`, such
/// processes still in its group are killed then); a command still running after `timeoutSeconds` is killed with its
/// whole process group (status 137). When the calling task is cancelled (the applier stops), the command's process
/// group gets SIGTERM at once and SIGKILL `interruptGraceSeconds` later if it is still running, and the run throws
/// ``ApplyError/interrupted(command:)``. The wait happens on NIO's thread pool, not on the caller's.
public struct CommandRunner: CommandRunning {
    public var timeoutSeconds: Int
    /// How long an interrupted command has between SIGTERM and SIGKILL.
    public var interruptGraceSeconds: Int
    /// Where commands run (the targets directory, so that a command can name a file beside its target by a relative
    /// path); `nil`, or a directory that cannot be entered now: the applier's own working directory.
    public var workingDirectory: String?
    public var threadPool: NIOThreadPool

    public init(
        timeoutSeconds: Int = 60,
        interruptGraceSeconds: Int = 2,
        workingDirectory: String? = nil,
        threadPool: NIOThreadPool = .singleton
    ) {
        self.timeoutSeconds = timeoutSeconds
        self.interruptGraceSeconds = interruptGraceSeconds
        self.workingDirectory = workingDirectory
        self.threadPool = threadPool
    }

    public func run(_ command: [String], killingLeftovers: Bool) async throws(ApplyError) -> CommandResult {
        let shown = command.joined(separator: " ")
        // A stop asked for already: the command is not started at all.
        guard !Task.isCancelled else { throw .interrupted(command: shown) }
        let limits = Limits(
            timeoutSeconds: self.timeoutSeconds,
            interruptGraceSeconds: self.interruptGraceSeconds,
            workingDirectory: self.workingDirectory
        )
        let interruption = CommandInterruption()
        let outcome: Result<CommandResult, ApplyError>
        do {
            outcome = try await withTaskCancellationHandler {
                try await self.threadPool.runIfActive {
                    Self.runBlocking(
                        command,
                        limits: limits,
                        killingLeftovers: killingLeftovers,
                        interruption: interruption
                    )
                }
            } onCancel: {
                interruption.interrupt()
            }
        } catch {
            throw .command(command: shown, reason: "the thread pool is shutting down")
        }
        return try outcome.get()
    }

    /// What bounds one run: its time, the grace after an interruption, where it runs.
    struct Limits: Sendable {
        var timeoutSeconds: Int
        var interruptGraceSeconds: Int
        var workingDirectory: String?
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does not declare.
    private static let closeFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self
            )
        }()

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), looked up for the same reason.
    private static let addChdir:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
            else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32)
                    .self
            )
        }()

    /// glibc's `pidfd_open` (2.36; Linux 5.3), looked up for the same reason.
    private static let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
    }()

    static func runBlocking(
        _ command: [String],
        limits: Limits,
        killingLeftovers: Bool,
        interruption: CommandInterruption
    ) -> Result<CommandResult, ApplyError> {
        let shown = command.joined(separator: " ")
        let timeoutSeconds = limits.timeoutSeconds
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
        // The control socket, the daemon connection, the event loop's descriptors: none is the command's business,
        // and one it kept (in a process left running) would keep them open after the applier ends.
        _ = Self.closeFrom?(&actions, 3)
        // A targets directory moved or removed while the applier runs (it keeps the targets it loaded) leaves the
        // commands in the applier's own working directory: they still run.
        if let directory = limits.workingDirectory, access(directory, X_OK) == 0 {
            guard let addChdir = Self.addChdir else {
                return .failure(
                    .command(
                        command: shown,
                        reason: "this C library cannot start a command in \(directory)"
                            + " (posix_spawn_file_actions_addchdir_np needs glibc 2.29)"
                    )
                )
            }
            _ = addChdir(&actions, directory)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        )

        var pid = pid_t()
        let arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let environment = Self.commandEnvironment()
        defer { for variable in environment { free(variable) } }
        let spawned = posix_spawnp(&pid, command[0], &actions, &attributes, arguments, environment)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            var reason = String(cString: strerror(spawned))
            // The working directory, not the program, may be what is missing: say which.
            if let directory = limits.workingDirectory, access(directory, X_OK) != 0 {
                reason = "its working directory \(directory): \(String(cString: strerror(errno)))"
            }
            return .failure(.command(command: shown, reason: reason))
        }

        // The command's end, as a descriptor that poll() reports readable: a process it left running in the
        // background may hold standard error open for ever.
        let exitNotice = Self.pidfdOpen?(pid, 0) ?? -1
        defer { if exitNotice >= 0 { close(exitNotice) } }
        var stderr: [UInt8] = []
        // The bytes of standard error left out before the last 4 KiB kept.
        var leftOut = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicDeadline(secondsFromNow: timeoutSeconds)
        // Set when the applier stops while the command runs: SIGTERM was sent, SIGKILL follows at this deadline.
        var graceDeadline: MonotonicDeadline?
        var killed = false
        var exited = false
        while true {
            var requests = [
                pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited ? -1 : exitNotice, events: Int16(POLLIN), revents: 0),
                pollfd(
                    fd: exited || graceDeadline != nil ? -1 : interruption.descriptor,
                    events: Int16(POLLIN),
                    revents: 0
                ),
            ]
            let left = min(deadline.millisecondsLeft, graceDeadline?.millisecondsLeft ?? .max)
            if left <= 0 && !killed {
                kill(-pid, SIGKILL)  // the command's process group: what it started too
                killed = true
            }
            // Once it exited, only what is already in the pipe is read.
            let ready = poll(&requests, 3, exited ? 0 : killed ? 1000 : Int32(min(left, 60_000)))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                // A process that left the group, or one it left in the background, keeps the pipe open.
                if killed || exited { break }
                continue
            }
            if requests[2].revents != 0 {
                // The applier stops: the command's process group is asked to end now, and killed after the grace.
                kill(-pid, SIGTERM)
                graceDeadline = MonotonicDeadline(secondsFromNow: limits.interruptGraceSeconds)
                if requests[0].revents == 0 && requests[1].revents == 0 { continue }
            }
            if requests[1].revents != 0 {
                // Exited: read what it wrote, without waiting for what its background processes may write.
                exited = true
                _ = fcntl(pipeEnds[0], F_SETFL, fcntl(pipeEnds[0], F_GETFL) | O_NONBLOCK)
                if requests[0].revents == 0 { continue }
            }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            stderr.append(contentsOf: buffer[0..<count])
            if stderr.count > 4096 {
                leftOut += stderr.count - 4096
                stderr.removeFirst(stderr.count - 4096)
            }
        }
        close(pipeEnds[0])
        if killingLeftovers && !killed {
            // Once it exited, and before it is reaped: its process id, which names the group, is not reused yet.
            var exitInfo = siginfo_t()
            while waitid(P_PID, id_t(pid), &exitInfo, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            kill(-pid, SIGKILL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Its verdict, if it gave one, came while the applier was stopping it: it is not taken.
        if graceDeadline != nil { return .failure(.interrupted(command: shown)) }
        let signal: Int32? = (status & 0x7f) == 0 ? nil : status & 0x7f
        let exit: Int32 = signal.map { 128 + $0 } ?? (status >> 8) & 0xff
        var text = Self.tail(stderr, leftOut: leftOut)
        if killed { text += (text.isEmpty ? "" : "\n") + "killed after \(timeoutSeconds) s" }
        return .success(CommandResult(status: exit, stderr: text.trimmingSuffixWhitespace(), signal: signal))
    }
}

extension CommandRunner {
    /// The variables systemd sets for the applier's own service, which a command must not take for its own: a
    /// `systemctl` that finds `NOTIFY_SOCKET` sends notifications systemd refuses from any process but the main one
    /// (`Got notification message from PID …, but reception only permitted for main PID`), and the watchdog's and
    /// socket activation's name the applier's process.
    static let serviceVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// The applier's environment without ``serviceVariables``, as `NAME=VALUE` strings for `posix_spawnp`, ending in
    /// `nil`; each to be freed.
    static func commandEnvironment() -> [UnsafeMutablePointer<CChar>?] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return Self.commandVariables(entries).map { strdup($0) } + [nil]
    }

    /// `entries` (`NAME=VALUE`) without those of ``serviceVariables``, in order.
    static func commandVariables(_ entries: [String]) -> [String] {
        entries.filter { !Self.serviceVariables.contains(String($0.prefix { $0 != "=" })) }
    }

    /// The end of a command's standard error as kept: when more came before it (`leftOut` bytes), it starts at a line
    /// and says how much is left out, as a cut diff does.
    static func tail(_ kept: [UInt8], leftOut: Int) -> String {
        guard leftOut > 0 else { return String(decoding: kept, as: UTF8.self) }
        var start = kept.startIndex
        if let newline = kept.firstIndex(of: UInt8(ascii: "\n")), newline + 1 < kept.endIndex { start = newline + 1 }
        let text = String(decoding: kept[start...], as: UTF8.self)
        return "… \(leftOut + start) bytes of standard error before this left out\n" + text
    }
}

extension String {
    func trimmingSuffixWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
