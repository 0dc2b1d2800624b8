import Logging
public import SettingsAPI

/// The Watch stream as the applier takes it: connected or not, and the events that change the values it renders.
extension ApplyInteractor {
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

    /// Takes a batch of events in stream order: the values they bring and the targets they touch, which the next
    /// pass applies (``passRequests``). Returns at once, also while a pass runs.
    public func received(_ events: [WatchEventViewModel]) {
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
        // The next pass applies them; a record's changes (a load, a reset, a schema change) are one change: while the
        // cursor is inside one (`module:N.i`, more of revision N to come), its first keys are not applied without the
        // others (``applyDirtyWhenSettled()``).
        self.passContinuation.yield()
        self.tellStatus()
    }

    /// Whether `cursor` stops inside a record: a position with a sub-position (`network:5.0`).
    static func insideRecord(_ cursor: String?) -> Bool {
        guard let cursor else { return false }
        return cursor.split(separator: ",").contains { position in
            position.split(separator: ":").last?.contains(".") ?? false
        }
    }
}
