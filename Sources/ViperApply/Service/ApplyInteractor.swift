public import Logging
import SettingsAPI
public import ViperPOSIX
public import ViperSystemd

/// The applier's core: the targets, the values they render from, and what applying them did. It takes the Watch
/// events the follower receives, renders every target a change touches once per batch of events, and persists its
/// cursor after applying, so that a restart resumes where it stopped.
public actor ApplyInteractor {
    private(set) var targets: [ApplyTarget] = []
    private(set) var problems: [ApplyError] = []
    var state: ApplyState
    /// Values received since the last `ready`, after a resync (the current values that replace the old ones).
    var incoming: [String: JSONValue]?
    var incomingRevisions: [String: Int64] = [:]
    /// Keys whose revision in `state` is a guess: a resync tells only the module's revision, and the state held none
    /// for them (it was lost) or held another value. Each target that reads one is rendered with the revisions its
    /// destination shows when that holds what the values render (``renderRevisions(of:)``).
    var guessed: Set<String> = []
    /// True once the daemon's values are known (the first `ready`).
    var ready = false
    /// Whether the Watch stream is open now.
    var connected = false
    /// Whether the follower tried to connect yet, and whether it ever did.
    var attempted = false
    var connectedOnce = false
    /// True from the `ready` of the stream open now (the values are the daemon's current ones, as it sends them)
    /// until the stream ends.
    var upToDate = false
    /// Where systemd's `STATUS=` goes (`nil`: nowhere, in tests), and the last status told, so that a status is told
    /// once, when it changes.
    let notifier: SystemdNotifier?
    var toldStatus: String?
    /// Set once `STOPPING=1` was told: no status after it.
    var stopping = false
    var dirty: Set<String> = []
    /// True while ``applyDirty()`` runs: a call that arrives meanwhile (a SIGHUP, reentering at an `await`) leaves
    /// its targets in `dirty` for the running one, so that no two applies of one file overlap.
    var applying = false
    /// The targets whose last apply failed in a way that can heal by itself, and their next attempt.
    var retries: [String: PendingRetry] = [:]
    /// Targets being applied because their retry was due: a failure of that apply schedules the next retry.
    var retrying: Set<String> = []
    /// The apply running now (its check, its write, its reload), if any: its target, the permit a reload of the
    /// targets withdraws when that target is removed, the task, cancelled then to stop its check, and when it began
    /// (for ``status()``).
    var inFlight: (target: ApplyTarget, permit: ApplyPermit, task: Task<ApplyOutcome, Never>, since: Double)?
    /// The targets of the pass still to come after the one being applied, for ``status()``.
    var passRemaining: [String] = []
    /// The cursor of the last change every target has finished applying (`Status`): behind `state.cursor` while
    /// changes received are still being applied (a check runs).
    var appliedCursor: String?
    /// Each pass asked for, for ``ApplyPassService`` to run: what ``received(_:)`` takes is applied by the next pass,
    /// so that the stream is read on while a pass runs (a check that takes its time), and the changes received
    /// meanwhile are applied together, from the newest values, by the pass after it.
    public nonisolated let passRequests: AsyncStream<Void>
    let passContinuation: AsyncStream<Void>.Continuation
    /// Each retry scheduled, for ``TargetRetryService`` to wait out and hand back to ``retry(target:attempt:)``.
    public nonisolated let retryRequests: AsyncStream<RetryRequest>
    let retryContinuation: AsyncStream<RetryRequest>.Continuation
    let applier: FileApplier
    let renderer = TargetRenderer()
    let store: ApplyStateStore
    let clock: WallClock
    let logger: Logger

    /// - Parameter notifier: Where the summary goes as systemd's `STATUS=` whenever it changes (connected, lost the
    ///   daemon, waiting for its values, targets failing…); `nil` sends nothing.
    public init(
        applier: FileApplier,
        store: ApplyStateStore,
        clock: WallClock = .system,
        notifier: SystemdNotifier? = nil,
        logger: Logger
    ) {
        self.applier = applier
        self.notifier = notifier
        self.store = store
        self.clock = clock
        self.logger = logger
        (self.retryRequests, self.retryContinuation) = AsyncStream.makeStream()
        (self.passRequests, self.passContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        do {
            self.state = try store.load()
        } catch {
            logger.warning("\(error)")
            self.state = ApplyState()
        }
        self.appliedCursor = self.state.cursor
    }

    /// Where to resume the Watch stream.
    public var cursor: String? { self.state.cursor }

    /// Replaces the targets (at start and on SIGHUP), logs each refused file and each file the applier wrote that
    /// no target writes any more (``leftBehind()``), and renders every target again once the values are known.
    public func replace(targets loaded: ApplyTargetLoader.Result) async {
        self.targets = loaded.targets
        self.problems = loaded.problems
        for problem in loaded.problems {
            self.logger.error("target not loaded: \(problem)")
        }
        self.logger.notice(
            "loaded \(loaded.targets.count) targets",
            metadata: ["targets": "\(loaded.targets.map(\.name).joined(separator: ","))"]
        )
        self.withdrawInFlight(keeping: loaded.targets)
        self.forgetRemovedFiles()
        self.logLeftBehind()
        self.dirty = Set(self.targets.map(\.name))
        let names = Set(self.targets.map(\.name))
        self.retries = self.retries.filter { names.contains($0.key) }
        if self.ready {
            self.logWarnings()
            await self.applyDirty()
        }
        self.tellStatus()
    }

    /// Before the targets are replaced: when the target being applied now is no longer loaded with its destination
    /// (removed, renamed, refused, or given another one), its apply is stopped before it replaces the file, so that
    /// nothing is written to a file the applier is about to say it no longer updates. An apply that replaced the
    /// file already goes on to its reload.
    private func withdrawInFlight(keeping loaded: [ApplyTarget]) {
        guard let inFlight = self.inFlight else { return }
        let target = inFlight.target
        let kept = loaded.contains {
            $0.name == target.name && $0.destination == target.destination && $0.root == target.root
        }
        guard !kept, inFlight.permit.withdraw() else { return }
        inFlight.task.cancel()  // stops its check
        let message =
            "target \(target.name) was removed, refused or given another destination while it was being applied: its"
            + " apply was stopped before it wrote \(target.destination), and nothing more is written to it"
        self.logger.notice(
            "\(message)",
            metadata: ["target": "\(target.name)", "destination": "\(target.destination)"]
        )
    }

    /// Reads the targets again (SIGHUP) and replaces them: a target loaded until now that still names its
    /// destination keeps it, and a target that names it too is refused (``ApplyTargetLoader/load(running:)``). A
    /// targets directory that cannot be read is logged, and the targets loaded until now are kept.
    public func reload(from loader: ApplyTargetLoader) async {
        let loaded: ApplyTargetLoader.Result
        do {
            loaded = try loader.load(running: self.targets)
        } catch {
            self.logger.error(
                "targets not re-read, keeping the \(self.targets.count) loaded until now: \(error)",
                metadata: ["targets": "\(self.targets.map(\.name).joined(separator: ","))"]
            )
            return
        }
        await self.replace(targets: loaded)
    }

    /// Whether the last apply of the target named `name` failed (its check, its reload, or the write).
    func lastApplyFailed(_ name: String) -> Bool {
        self.state.outcomes[name].map { !["written", "unchanged"].contains($0.result) } ?? false
    }

    /// Whether every target was applied since the values became known (for readiness).
    public var isSettled: Bool { self.ready && self.dirty.isEmpty && !self.applying }
}
