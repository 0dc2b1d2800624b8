/// The state of remote sync (the IDL's `SyncStatus`). Times are seconds since the Unix epoch.
public struct SyncStatusViewModel: Sendable, Hashable {
    /// `off`, `starting`, `ok` or `failing`.
    public var state: String
    public var source: String
    public var lastSuccess: Double?
    public var lastAttempt: Double?
    public var revision: String?
    public var lastError: String?
    public var nextAttempt: Double?
    public var rejected: [String]

    public init(
        state: String,
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

    /// The wire form.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "state": .string(self.state), "source": .string(self.source),
            "rejected": .array(self.rejected.map { .string($0) }),
        ]
        if let value = self.lastSuccess { object["lastSuccess"] = .double(value) }
        if let value = self.lastAttempt { object["lastAttempt"] = .double(value) }
        if let value = self.revision { object["revision"] = .string(value) }
        if let value = self.lastError { object["lastError"] = .string(value) }
        if let value = self.nextAttempt { object["nextAttempt"] = .double(value) }
        return .object(object)
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.state = try json.string("state")
        self.source = try json.string("source")
        self.lastSuccess = json["lastSuccess"]?.doubleValue
        self.lastAttempt = json["lastAttempt"]?.doubleValue
        self.revision = try json.optionalString("revision")
        self.lastError = try json.optionalString("lastError")
        self.nextAttempt = json["nextAttempt"]?.doubleValue
        self.rejected = try json.array("rejected") { element throws(JSONDecodingError) in
            guard let text = element.stringValue else {
                throw JSONDecodingError(field: "", reason: "expected a string")
            }
            return text
        }
    }
}

/// The reply of `Status`.
public struct StatusViewModel: Sendable, Hashable {
    public var version: String
    public var modules: Int
    public var keys: Int
    public var sync: SyncStatusViewModel
    /// The daemon's clock, to compute ages.
    public var now: Double

    public init(version: String, modules: Int, keys: Int, sync: SyncStatusViewModel, now: Double) {
        self.version = version
        self.modules = modules
        self.keys = keys
        self.sync = sync
        self.now = now
    }

    /// The wire form.
    public var json: JSONValue {
        [
            "version": .string(self.version), "modules": .int(Int64(self.modules)), "keys": .int(Int64(self.keys)),
            "sync": self.sync.json, "now": .double(self.now),
        ]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.version = try json.string("version")
        self.modules = Int(try json.int("modules"))
        self.keys = Int(try json.int("keys"))
        self.sync = try json.nested("sync") { value throws(JSONDecodingError) in try SyncStatusViewModel(json: value) }
        guard let now = json["now"]?.doubleValue else { throw JSONDecodingError(field: "now", reason: "missing") }
        self.now = now
    }
}

/// The reply of `Sync`.
public struct SyncResultViewModel: Sendable, Hashable {
    public var sync: SyncStatusViewModel
    /// Keys whose effective value changed.
    public var changed: [String]
    public var now: Double

    public init(sync: SyncStatusViewModel, changed: [String], now: Double) {
        self.sync = sync
        self.changed = changed
        self.now = now
    }

    /// The wire form.
    public var json: JSONValue {
        ["sync": self.sync.json, "changed": .array(self.changed.map { .string($0) }), "now": .double(self.now)]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.sync = try json.nested("sync") { value throws(JSONDecodingError) in try SyncStatusViewModel(json: value) }
        self.changed = try json.array("changed") { element throws(JSONDecodingError) in
            guard let text = element.stringValue else {
                throw JSONDecodingError(field: "", reason: "expected a string")
            }
            return text
        }
        guard let now = json["now"]?.doubleValue else { throw JSONDecodingError(field: "now", reason: "missing") }
        self.now = now
    }
}
