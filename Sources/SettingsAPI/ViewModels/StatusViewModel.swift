/// The state of remote sync (the IDL's `SyncStatus`). Times are seconds since the Unix epoch.
public struct SyncStatusViewModel: Sendable, Hashable, Codable {
    /// `off`, `starting`, `ok` or `failing`.
    public var state: String
    public var source: String
    public var lastSuccess: Double?
    public var lastAttempt: Double?
    public var revision: String?
    public var lastError: String?
    public var nextAttempt: Double?
    /// Remote values the schemas rejected, sorted by module and key: the first ``rejectedShown`` when there are more.
    public var rejected: [String]
    /// How many remote values the schemas rejected in all.
    public var rejectedCount: Int
    /// Remote values in force in the recommended layer, over every module.
    public var recommendedInForce: Int
    /// Remote values in force in the mandatory layer, over every module.
    public var mandatoryInForce: Int

    public init(
        state: String,
        source: String,
        lastSuccess: Double? = nil,
        lastAttempt: Double? = nil,
        revision: String? = nil,
        lastError: String? = nil,
        nextAttempt: Double? = nil,
        rejected: [String] = [],
        rejectedCount: Int? = nil,
        recommendedInForce: Int = 0,
        mandatoryInForce: Int = 0
    ) {
        self.state = state
        self.source = source
        self.lastSuccess = lastSuccess
        self.lastAttempt = lastAttempt
        self.revision = revision
        self.lastError = lastError
        self.nextAttempt = nextAttempt
        self.rejected = rejected
        self.rejectedCount = rejectedCount ?? rejected.count
        self.recommendedInForce = recommendedInForce
        self.mandatoryInForce = mandatoryInForce
    }

    private enum CodingKeys: String, CodingKey {
        case state, source, lastSuccess, lastAttempt, revision, lastError, nextAttempt, rejected, rejectedCount
        case recommendedInForce, mandatoryInForce
    }

    /// Reads a status; one from a daemon before `rejectedCount` (during an upgrade) counts the values it lists.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.state = try container.decode(String.self, forKey: .state)
        self.source = try container.decode(String.self, forKey: .source)
        self.lastSuccess = try container.decodeIfPresent(Double.self, forKey: .lastSuccess)
        self.lastAttempt = try container.decodeIfPresent(Double.self, forKey: .lastAttempt)
        self.revision = try container.decodeIfPresent(String.self, forKey: .revision)
        self.lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        self.nextAttempt = try container.decodeIfPresent(Double.self, forKey: .nextAttempt)
        self.rejected = try container.decode([String].self, forKey: .rejected)
        self.rejectedCount = try container.decodeIfPresent(Int.self, forKey: .rejectedCount) ?? self.rejected.count
        self.recommendedInForce = try container.decode(Int.self, forKey: .recommendedInForce)
        self.mandatoryInForce = try container.decode(Int.self, forKey: .mandatoryInForce)
    }
}

extension SyncStatusViewModel {
    /// The most rejected remote values a status lists: a source can name hundreds of thousands of keys no schema
    /// has, and the reply must stay readable (and within a client's reply limit).
    public static let rejectedShown = 1000
}

/// The reply of `Status`.
public struct StatusViewModel: Sendable, Hashable, Codable {
    public var version: String
    public var modules: Int
    public var keys: Int
    public var sync: SyncStatusViewModel
    /// The daemon's clock, to compute ages.
    public var now: Double
    /// What is wrong with the daemon now, in words (state files unusable, schema files rejected, a reload refused);
    /// absent when nothing is.
    public var problems: [String]?

    public init(
        version: String,
        modules: Int,
        keys: Int,
        sync: SyncStatusViewModel,
        now: Double,
        problems: [String]? = nil
    ) {
        self.version = version
        self.modules = modules
        self.keys = keys
        self.sync = sync
        self.now = now
        self.problems = problems
    }
}

/// The reply of `Sync`.
public struct SyncResultViewModel: Sendable, Hashable, Codable {
    public var sync: SyncStatusViewModel
    /// Keys whose effective value changed (`changedKeys`: `changed` is a Boolean in the other replies).
    public var changedKeys: [String]
    public var now: Double
    /// True when no attempt was made for this call: the result is that of a sync that ended less than
    /// `sync-min-interval` before it; absent otherwise.
    public var earlier: Bool?

    public init(sync: SyncStatusViewModel, changedKeys: [String], now: Double, earlier: Bool? = nil) {
        self.sync = sync
        self.changedKeys = changedKeys
        self.now = now
        self.earlier = earlier
    }
}
