public import Logging
public import SettingsAPI
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
    private var incoming: [String: JSONValue]?
    private var incomingRevisions: [String: Int64] = [:]
    /// Keys whose revision in `state` is a guess: a resync tells only the module's revision, and the state held none
    /// for them (it was lost) or held another value. Each target that reads one is rendered with the revisions its
    /// destination shows when that holds what the values render (``renderRevisions(of:)``).
    var guessed: Set<String> = []
    /// True once the daemon's values are known (the first `ready`).
    private(set) var ready = false
    /// Whether the Watch stream is open now.
    private(set) var connected = false
    /// Whether the follower tried to connect yet, and whether it ever did.
    private(set) var attempted = false
    private(set) var connectedOnce = false
    /// True from the `ready` of the stream open now (the values are the daemon's current ones, as it sends them)
    /// until the stream ends.
    private(set) var upToDate = false
    /// Where systemd's `STATUS=` goes (`nil`: nowhere, in tests), and the last status told, so that a status is told
    /// once, when it changes.
    let notifier: SystemdNotifier?
    var toldStatus: String?
    /// Set once `STOPPING=1` was told: no status after it.
    var stopping = false
    private var dirty: Set<String> = []
    /// True while ``applyDirty()`` runs: a call that arrives meanwhile (a SIGHUP, reentering at an `await`) leaves
    /// its targets in `dirty` for the running one, so that no two applies of one file overlap.
    private var applying = false
    /// The targets whose last apply failed in a way that can heal by itself, and their next attempt.
    var retries: [String: PendingRetry] = [:]
    /// Targets being applied because their retry was due: a failure of that apply schedules the next retry.
    var retrying: Set<String> = []
    /// The apply running now (its check, its write, its reload), if any: its target, the permit a reload of the
    /// targets withdraws when that target is removed, the task, cancelled then to stop its check, and when it began
    /// (for ``status()``).
    private var inFlight: (target: ApplyTarget, permit: ApplyPermit, task: Task<ApplyOutcome, Never>, since: Double)?
    /// The targets of the pass still to come after the one being applied, for ``status()``.
    private var passRemaining: [String] = []
    /// The cursor of the last change every target has finished applying (`Status`): behind `state.cursor` while
    /// changes received are still being applied (a check runs).
    private var appliedCursor: String?
    /// Each retry scheduled, for ``TargetRetryService`` to wait out and hand back to ``retry(target:attempt:)``.
    public nonisolated let retryRequests: AsyncStream<RetryRequest>
    let retryContinuation: AsyncStream<RetryRequest>.Continuation
    let applier: FileApplier
    let renderer = TargetRenderer()
    private let store: ApplyStateStore
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

    /// The follower connected (true) or lost the connection (false).
    public func connection(_ up: Bool) {
        self.connected = up
        self.attempted = true
        if up { self.connectedOnce = true }
        // Up to date again at the `ready` of the new stream.
        self.upToDate = false
        if !up {
            self.incoming = nil
            self.incomingRevisions = [:]
        }
        self.tellStatus()
    }

    /// A cursor the daemon refused (its history is gone, or it is not the daemon's): start over without it.
    public func forgetCursor() {
        self.state.cursor = nil
    }

    /// Takes a batch of events in stream order; applies what they changed.
    public func received(_ events: [WatchEventViewModel]) async {
        for event in events {
            switch event.event {
            case .resync:
                self.incoming = [:]
                self.incomingRevisions = [:]
            case .current:
                guard let key = event.key else { continue }
                if self.incoming == nil { self.incoming = [:] }
                self.incoming?[key] = event.value
                self.incomingRevisions[key] = event.revision ?? 0
            case .ready:
                if let incoming = self.incoming {
                    let changed = Set(incoming.keys).symmetricDifference(self.state.values.keys)
                        .union(incoming.keys.filter { incoming[$0] != self.state.values[$0] })
                    // A key whose value is the one held keeps the revision of its last change: a resync tells only
                    // the module's revision, and `revision.MODULE` must not move for what did not change.
                    // Not one above the module's revision now, though: a daemon whose state was reset (or restored from
                    // a backup) counts again from there, and an older history's revision would name no change of it.
                    var revisions = self.incomingRevisions
                    for (key, value) in incoming where self.state.values[key] == value {
                        if let kept = self.state.revisions[key], kept <= revisions[key] ?? 0 { revisions[key] = kept }
                    }
                    self.guessed.formIntersection(incoming.keys)
                    for (key, value) in incoming
                    where self.state.revisions[key] == nil || self.state.values[key] != value {
                        self.guessed.insert(key)
                    }
                    self.state.values = incoming
                    self.state.revisions = revisions
                    self.incoming = nil
                    self.incomingRevisions = [:]
                    self.markDirty(keys: changed)
                }
                self.upToDate = true
                if !self.ready {
                    self.ready = true
                    self.dirty = Set(self.targets.map(\.name))  // every target once at start
                    self.logWarnings()
                }
                self.state.cursor = event.cursor
            case .change:
                guard let key = event.key else { continue }
                self.state.values[key] = event.value
                self.state.revisions[key] = event.revision ?? self.state.revisions[key] ?? 0
                if event.revision != nil { self.guessed.remove(key) }
                self.markDirty(keys: [key])
                if !event.cursor.isEmpty { self.state.cursor = event.cursor }
            }
        }
        // A record's changes (a load, a reset, a schema change) are one change: while the cursor is inside one
        // (`module:N.i`, more of revision N to come), its first keys are not applied without the others.
        await self.applyDirtyWhenSettled()
        self.tellStatus()
    }

    /// Whether `cursor` stops inside a record: a position with a sub-position (`network:5.0`).
    static func insideRecord(_ cursor: String?) -> Bool {
        guard let cursor else { return false }
        return cursor.split(separator: ",").contains { position in
            position.split(separator: ":").last?.contains(".") ?? false
        }
    }

    /// Every target's status.
    public func status() -> ApplyStatusViewModel {
        ApplyStatusViewModel(
            targets: self.targets.map { target in
                TargetStatusViewModel(
                    target: target.name,
                    description: target.description,
                    reads: target.reads,
                    destination: target.destination,
                    last: self.state.outcomes[target.name],
                    retry: self.retries[target.name].map { TargetRetryViewModel(attempt: $0.attempt, at: $0.at) }
                )
            },
            problems: self.problemViewModels,
            warnings: self.warningViewModels,
            connected: self.connected,
            cursor: self.appliedCursor,
            applying: self.inFlight.map { now in
                let waiting = Set(self.passRemaining).union(self.dirty).subtracting([now.target.name])
                return ApplyingNowViewModel(
                    target: now.target.name,
                    since: now.since,
                    waiting: self.targets.map(\.name).filter { waiting.contains($0) }
                )
            }
        )
    }

    /// What applying every target now would do, checks included; nothing is written. Refused (``ApplyError/notReady(_:)``)
    /// unless the values are the daemon's current ones: not before they arrived, and not while the daemon is away,
    /// whatever values were received before (they may be stale).
    public func dryRun() async throws(ApplyError) -> ApplyDryRunViewModel {
        guard self.upToDate else {
            throw .notReady(
                self.connected
                    ? "it has not received the settings daemon's current values yet; nothing was rendered"
                    : "it is not connected to the settings daemon (it keeps trying to reconnect), so the values it"
                        + " holds may be stale; nothing was rendered"
            )
        }
        // Each target is rendered now, from the values held, as an apply would render it (one that reads a module
        // the daemon does not serve is not rendered: it fails); then their checks run at the same time, each for at
        // most its time limit, so that a few slow checks do not keep the caller waiting for their sum.
        let targets = self.targets
        var revisions: [[String: Int64]] = []
        var rendered: [Result<String, ApplyError>] = []
        for target in targets {
            let revision = self.renderRevisions(of: target)
            revisions.append(revision)
            rendered.append(Result { () throws(ApplyError) -> String in try self.render(target, revisions: revision) })
        }
        let applier = self.applier
        let outcomes = await withTaskGroup(of: (Int, ApplyOutcome).self) { group in
            for (index, target) in targets.enumerated() {
                switch rendered[index] {
                case .success(let text):
                    group.addTask { (index, await applier.apply(target, rendered: text, dryRun: true)) }
                case .failure(let error):
                    group.addTask { (index, ApplyOutcome(result: .failed, error: error.description)) }
                }
            }
            var outcomes: [Int: ApplyOutcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        return ApplyDryRunViewModel(
            targets: targets.indices.compactMap { index in
                outcomes[index].map {
                    self.viewModel(targets[index], $0, revisions: revisions[index], at: nil, diff: true)
                }
            },
            problems: self.problemViewModels,
            warnings: self.warningViewModels
        )
    }

    /// Whether the last apply of the target named `name` failed (its check, its reload, or the write).
    func lastApplyFailed(_ name: String) -> Bool {
        self.state.outcomes[name].map { !["written", "unchanged"].contains($0.result) } ?? false
    }

    /// Whether every target was applied since the values became known (for readiness).
    public var isSettled: Bool { self.ready && self.dirty.isEmpty && !self.applying }

    /// The target files refused.
    private var problemViewModels: [TargetProblemViewModel] {
        self.problems.map { problem in
            if case .badTarget(let file, let reason) = problem {
                return TargetProblemViewModel(file: file, reason: reason)
            }
            return TargetProblemViewModel(file: "", reason: problem.description)
        }
    }

    /// `target` rendered from the values held, as an apply and a dry run render it: not at all when it reads a
    /// module the daemon does not serve (``unserved(_:)``).
    private func render(_ target: ApplyTarget, revisions: [String: Int64]) throws(ApplyError) -> String {
        if let reason = self.unserved(target) { throw reason }
        return try self.renderer.render(target, values: self.state.values, revisions: revisions)
    }

    /// Why `target` is not rendered: it reads a module the daemon does not serve (a schema removed or rejected, a
    /// typo), and rendering would blank every value of it in a system file; the file keeps what it holds until the
    /// module is served. `nil` when every module it reads is served.
    private func unserved(_ target: ApplyTarget) -> ApplyError? {
        let served = Set(self.state.values.keys.map(ApplyTarget.module(of:)))
        let missing = target.modules.subtracting(served).sorted()
        guard !missing.isEmpty else { return nil }
        return .notServed(modules: missing)
    }

    /// Renders `target` from the values held and applies it (as ``FileApplier/apply(_:rendered:dryRun:permit:)``
    /// does), as the apply in flight: a reload of the targets that removes it withdraws its permit and cancels it. A
    /// render too large to finish fails the target, not retried: the same values render the same way, and a change
    /// applies the target again.
    private func renderAndApply(
        _ target: ApplyTarget,
        revisions: [String: Int64],
        permit: ApplyPermit
    ) async -> ApplyOutcome {
        let rendered: String
        do {
            rendered = try self.render(target, revisions: revisions)
        } catch {
            return ApplyOutcome(result: .failed, error: error.description)
        }
        let applier = self.applier
        let task = Task { await applier.apply(target, rendered: rendered, permit: permit) }
        self.inFlight = (target, permit, task, self.clock.now())
        defer { self.inFlight = nil }
        // A stop (SIGTERM cancels the caller) stops the command as before.
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// What to fix in target files that were loaded all the same, and the files the applier wrote that no target
    /// writes any more.
    private var warningViewModels: [TargetProblemViewModel] {
        self.unknownReads.map { TargetProblemViewModel(file: $0.target.source, reason: $0.reason) }
            + self.leftBehindViewModels
    }

    /// Once the daemon's values are known: what to fix in each target that is applied all the same
    /// (``TargetWarnings``).
    private var unknownReads: [(target: ApplyTarget, reason: String)] {
        guard self.ready else { return [] }
        return self.targets.flatMap { target in
            TargetWarnings.reasons(for: target, values: self.state.values).map { (target, $0) }
        }
    }

    /// Logs what to fix in the targets loaded (at the first values, and when the targets are read again).
    private func logWarnings() {
        for (target, reason) in self.unknownReads {
            self.logger.warning("\(target.source): \(reason)", metadata: ["target": "\(target.name)"])
        }
    }

    private func markDirty(keys: some Sequence<String>) {
        for key in keys {
            for target in self.targets where target.reads(key: key) { self.dirty.insert(target.name) }
        }
    }

    /// Applies the targets marked dirty, unless a record is half received or the values are not known yet.
    func applyDirtyWhenSettled() async {
        if self.ready, !Self.insideRecord(self.state.cursor) { await self.applyDirty() }
    }

    /// Marks the target named `name` to be applied again.
    func markDirty(target name: String) {
        self.dirty.insert(name)
    }

    /// Whether a target named `name` is loaded.
    func hasTarget(_ name: String) -> Bool {
        self.targets.contains { $0.name == name }
    }

    private func applyDirty() async {
        guard !self.applying else { return }
        self.applying = true
        // At a stop (SIGTERM: the task is cancelled), no further target is started; the one whose check or reload
        // runs has it stopped. The next start applies every target anyway.
        while !self.dirty.isEmpty && !Task.isCancelled {
            let names = self.dirty
            self.dirty = []
            // Every target reflects at least the changes up to here once this pass ends.
            let cursor = self.state.cursor
            var finished = true
            // The targets rendered, with the revisions they were rendered with.
            var applied: [(target: ApplyTarget, revisions: [String: Int64])] = []
            // By name, each as loaded when its turn comes: a reload of the targets meanwhile (SIGHUP) may have
            // removed it (it is no longer applied) or changed it.
            self.passRemaining = self.targets.map(\.name).filter { names.contains($0) }
            defer { self.passRemaining = [] }
            for name in self.targets.map(\.name) where names.contains(name) {
                self.passRemaining.removeAll { $0 == name }
                guard !Task.isCancelled else { break }
                guard let target = self.targets.first(where: { $0.name == name }) else { continue }
                let revisions = self.renderRevisions(of: target)
                let outcome: ApplyOutcome
                let permit = ApplyPermit()
                let unserved = self.unserved(target)
                if let unserved {
                    outcome = ApplyOutcome(result: .failed, error: unserved.description)
                } else {
                    outcome = await self.renderAndApply(target, revisions: revisions, permit: permit)
                }
                if permit.isWithdrawn {
                    // Removed meanwhile (logged then): nothing was written, and it is no longer applied.
                    self.retrying.remove(target.name)
                    continue
                }
                if outcome.interrupted {
                    finished = false
                    self.logger.notice(
                        "\(target.name): \(outcome.error ?? "interrupted"); its last outcome is kept",
                        metadata: ["target": "\(target.name)", "destination": "\(target.destination)"]
                    )
                    self.dirty.insert(target.name)
                    continue
                }
                if unserved == nil { applied.append((target, revisions)) }
                let model = self.viewModel(target, outcome, revisions: revisions, at: self.clock.now(), diff: false)
                self.log(target, outcome, model)
                self.scheduleRetry(of: target, after: outcome)
                self.recordWritten(target, outcome)
                // An unchanged file keeps the record of when it was written, unless that record is a failure: the
                // file holds what the values render now, so the failure is over.
                if outcome.result != .unchanged || self.state.outcomes[target.name] == nil
                    || self.lastApplyFailed(target.name)
                {
                    self.state.outcomes[target.name] = model
                }
            }
            self.settleGuesses(applied)
            self.forgetRemovedFiles()
            do {
                try self.store.save(self.state)
            } catch {
                self.logger.error("\(error)")
            }
            if finished && !Task.isCancelled { self.appliedCursor = cursor }
        }
        // Nothing left to apply: every target holds what the changes up to the last one received render.
        if self.dirty.isEmpty && !Task.isCancelled { self.appliedCursor = self.state.cursor }
        self.applying = false
        self.tellStatus()
    }
}
