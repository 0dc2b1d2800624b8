import Synchronization

/// Hands the change records of every module to watchers as they become durable. Publishers never wait for
/// watchers: each subscription has a bounded backlog, and one that falls further behind loses its backlog and is
/// told so (``Delivery/overflow``) on its next read, so a watcher that stops reading costs bounded memory.
public final class ChangeFeed: Sendable {
    /// One published record and its module.
    public struct Published: Sendable, Hashable {
        public var module: String
        public var record: ChangeRecord

        public init(module: String, record: ChangeRecord) {
            self.module = module
            self.record = record
        }
    }

    /// What a subscription reads next.
    public enum Delivery: Sendable, Hashable {
        /// Records published since the last read, in the order of publication.
        case records([Published])
        /// The backlog overflowed: records were dropped; the watcher must start over from the current state.
        case overflow
        /// The watcher must start over from the module's current state, for `cause`.
        case reset(module: String, cause: ResetCause)
    }

    /// Why the watchers of a module must start over from its current state.
    public enum ResetCause: Sendable, Hashable {
        /// The module's state was read again from its files (they could not be used before): what was served
        /// meanwhile was not its state.
        case stateReloaded
        /// A schema reload changed the module's values and the change could not be stored: it was not published.
        case schemaChangeNotStored
    }

    private struct Subscriber {
        /// The modules followed; `nil` for every module.
        var modules: Set<String>?
        var backlog: [Published] = []
        var overflowed = false
        /// A module whose watchers must start over, and why, to be told before anything else.
        var reset: (module: String, cause: ResetCause)?
        var waiter: CheckedContinuation<Delivery?, Never>?
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    /// Records a subscription may have unread before it overflows.
    public let backlogLimit: Int
    private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Creates a feed.
    ///
    /// - Parameters:
    ///   - backlogLimit: Bounds each subscription's unread records.
    ///   - schedule: Runs the wake-up of the subscriptions that wait for a publication, later or at once (the
    ///     default). The daemon passes its serving event loop's `execute`: the wake-up is queued behind the writer
    ///     that published, so a writer's reply does not wait for every watcher to be served first.
    public init(
        backlogLimit: Int = 1024,
        schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() }
    ) {
        precondition(backlogLimit >= 1, "backlogLimit must be at least 1")
        self.backlogLimit = backlogLimit
        self.schedule = schedule
    }

    /// The number of subscriptions, for tests and status.
    public var subscriberCount: Int { self.state.withLock { $0.subscribers.count } }

    /// The number of subscriptions waiting for a publication (their wake-up not yet taken), for tests and status.
    public var waitingCount: Int { self.state.withLock { $0.subscribers.values.count { $0.waiter != nil } } }

    /// Publishes the durable records of `module`, in revision order. Never waits: the subscriptions waiting for
    /// records are woken through the feed's `schedule`.
    public func publish(module: String, records: [ChangeRecord]) {
        guard !records.isEmpty else { return }
        let published = records.map { Published(module: module, record: $0) }
        var wake: [(CheckedContinuation<Delivery?, Never>, Delivery)] = []
        self.state.withLock { state in
            // In place, by index: iterating the dictionary while assigning into it would copy it on every publish.
            var index = state.subscribers.values.startIndex
            while index != state.subscribers.values.endIndex {
                defer { state.subscribers.values.formIndex(after: &index) }
                guard state.subscribers.values[index].modules?.contains(module) ?? true else { continue }
                if let waiter = state.subscribers.values[index].waiter {
                    state.subscribers.values[index].waiter = nil
                    wake.append((waiter, .records(published)))
                } else if state.subscribers.values[index].overflowed {
                    continue
                } else if state.subscribers.values[index].backlog.count + published.count > self.backlogLimit {
                    state.subscribers.values[index].backlog = []
                    state.subscribers.values[index].overflowed = true
                } else {
                    state.subscribers.values[index].backlog += published
                }
            }
        }
        guard !wake.isEmpty else { return }
        self.schedule { [wake] in
            for (waiter, delivery) in wake { waiter.resume(returning: delivery) }
        }
    }

    /// Tells the subscriptions to `module` to start over from its current state, for `cause`: each gets
    /// ``Delivery/reset(module:cause:)`` next, its unread records dropped (the state they lead to is in the current
    /// one).
    public func reset(module: String, cause: ResetCause) {
        var wake: [CheckedContinuation<Delivery?, Never>] = []
        self.state.withLock { state in
            for id in state.subscribers.keys where state.subscribers[id]!.modules?.contains(module) ?? true {
                state.subscribers[id]!.backlog = []
                state.subscribers[id]!.overflowed = false
                if let waiter = state.subscribers[id]!.waiter {
                    state.subscribers[id]!.waiter = nil
                    wake.append(waiter)
                } else {
                    state.subscribers[id]!.reset = (module, cause)
                }
            }
        }
        guard !wake.isEmpty else { return }
        self.schedule { [wake] in
            for waiter in wake { waiter.resume(returning: .reset(module: module, cause: cause)) }
        }
    }

    /// Subscribes to the records of `modules` (of every module when `nil`) published from now on.
    public func subscribe(modules: Set<String>?) -> ChangeSubscription {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = Subscriber(modules: modules)
            return state.nextID
        }
        return ChangeSubscription(feed: self, id: id)
    }

    /// The next delivery of subscription `id`, waiting for one; `nil` when the task is cancelled.
    func next(_ id: Int) async -> Delivery? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery?, Never>) in
                let ready: Delivery?? = self.state.withLock { state in
                    guard var subscriber = state.subscribers[id], !Task.isCancelled else { return .some(nil) }
                    defer { state.subscribers[id] = subscriber }
                    if let reset = subscriber.reset {
                        subscriber.reset = nil
                        return .some(.reset(module: reset.module, cause: reset.cause))
                    }
                    if subscriber.overflowed {
                        subscriber.overflowed = false
                        return .some(.overflow)
                    }
                    if !subscriber.backlog.isEmpty {
                        defer { subscriber.backlog = [] }
                        return .some(.records(subscriber.backlog))
                    }
                    subscriber.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state in
                defer { state.subscribers[id]?.waiter = nil }
                return state.subscribers[id]?.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Ends subscription `id`.
    func cancel(_ id: Int) {
        let waiter = self.state.withLock { $0.subscribers.removeValue(forKey: id)?.waiter }
        waiter?.resume(returning: nil)
    }
}

/// A subscription to a ``ChangeFeed``: read it with ``next()``; it ends when released or cancelled.
public final class ChangeSubscription: Sendable {
    private let feed: ChangeFeed
    private let id: Int

    init(feed: ChangeFeed, id: Int) {
        self.feed = feed
        self.id = id
    }

    deinit { self.feed.cancel(self.id) }

    /// Waits for the next delivery; `nil` once the task is cancelled or the subscription ended.
    public func next() async -> ChangeFeed.Delivery? {
        await self.feed.next(self.id)
    }

    /// Ends the subscription.
    public func cancel() { self.feed.cancel(self.id) }
}
