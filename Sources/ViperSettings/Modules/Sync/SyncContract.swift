public import SettingsAPI

// The Sync module's contract: every protocol between its parts, and the messages they exchange. Its data source is
// a ``RemoteSource`` (HTTP(S) or etcd, in ViperSync), which records progress in a ``SyncStatusRecorder``; its View is
// its own reply sink (``SyncViewProtocol``), which shares the failures of the Settings module's.

/// The state of remote sync.
public enum SyncState: String, Sendable, Hashable, CaseIterable {
    /// No remote source is configured.
    case off
    /// A source is configured and has not answered yet.
    case starting
    /// The last attempt succeeded (or the watch is connected).
    case ok
    /// The last attempt failed; the last known good values stay in force.
    case failing
}

/// The state of sync at one moment. Times are seconds since the Unix epoch.
public struct SyncStatus: Sendable, Hashable {
    public var state: SyncState
    /// The endpoint, or empty when sync is off.
    public var source: String
    public var lastSuccess: Double?
    public var lastAttempt: Double?
    /// The source's revision of the remote values in force (also after a restart, from the cache on disk).
    public var revision: String?
    public var lastError: String?
    public var nextAttempt: Double?
    /// Remote values rejected by the schemas in the last applied snapshot, as `module.section.item: reason`.
    public var rejected: [String]
    /// How many remote values are in force in the recommended layer, over every module served.
    public var recommendedInForce: Int = 0
    /// How many remote values are in force in the mandatory layer, over every module served.
    public var mandatoryInForce: Int = 0

    public init(
        state: SyncState,
        source: String,
        lastSuccess: Double? = nil,
        lastAttempt: Double? = nil,
        revision: String? = nil,
        lastError: String? = nil,
        nextAttempt: Double? = nil,
        rejected: [String] = []
    ) {
        self.state = state
        self.source = source
        self.lastSuccess = lastSuccess
        self.lastAttempt = lastAttempt
        self.revision = revision
        self.lastError = lastError
        self.nextAttempt = nextAttempt
        self.rejected = rejected
    }
}

/// What a View (one client call) asks the Sync module for.
public enum SyncViewEvent: Sendable, Hashable {
    /// What the daemon serves and the state of sync.
    case status
    /// Sync now, wait, and report what changed.
    case sync
}

/// The result of a sync: the status after it and the keys whose effective value it changed.
public struct SyncOutcome: Sendable, Hashable {
    public var status: SyncStatus
    /// `module.section.item`, in order of change, without repeats.
    public var changed: [String]
    /// True when no attempt was made for this call: the outcome is that of a sync that ended less than the minimum
    /// interval before it (`changed` is what that sync changed).
    public var earlier: Bool

    public init(status: SyncStatus, changed: [String], earlier: Bool = false) {
        self.status = status
        self.changed = changed
        self.earlier = earlier
    }
}

/// What the Sync Presenter hands the View.
public enum SyncViewModel: Sendable, Hashable, Encodable {
    case status(StatusViewModel)
    case sync(SyncResultViewModel)

    /// Encodes the ViewModel of the case: the reply's parameters.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .status(let model): try model.encode(to: encoder)
        case .sync(let model): try model.encode(to: encoder)
        }
    }
}

/// The View of one call: the reply sink the Sync Presenter talks to.
public protocol SyncViewProtocol: FailureViewProtocol {
    /// Shows the result of the call.
    func display(_ viewModel: SyncViewModel) async
}

/// The Presenter: turns Sync View events into Interactor calls, and results into ViewModels.
public protocol SyncPresenterProtocol: Sendable {
    /// Handles one event from `caller` and answers on `view`.
    func handle(_ event: SyncViewEvent, caller: Caller, view: any SyncViewProtocol) async
}

/// The Interactor: the Sync module's use cases.
public protocol SyncInteractorProtocol: Sendable {
    /// The state of sync now.
    func status() -> SyncStatus
    /// How many modules and keys are served now.
    func served() -> (modules: Int, keys: Int)
    /// What is wrong with the daemon now (state files, schema files, a reload refused).
    func health() async -> DaemonHealth
    /// Syncs now and waits for the attempt. Only root and writers of some module may; calls that arrive while a
    /// sync runs, or shortly after one ended, share that one instead of asking the source again.
    func sync(caller: Caller) async throws(SettingsFailure) -> SyncOutcome
}
