import Logging
import Synchronization
import ViperSettings

/// The watch of one member: events applied as they come, while the member is probed.
extension EtcdRemoteSource {
    /// Watches from the revision after `keySpace`, applying each event batch, until the watch ends.
    ///
    /// `failing`: watches ended before they worked, and `status` says so; the first event or answered probe of this
    /// one ends that, in `status` and in the log.
    func watch(
        endpoint: (host: String, port: Int),
        key: [UInt8],
        rangeEnd: [UInt8],
        keySpace initial: EtcdKeySpace,
        failing: Bool,
        apply: @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async -> WatchOutcome {
        let keySpace = WatchedKeySpace(initial)
        let progress = WatchProgress()
        let name = EtcdGatewayClient.authority(endpoint)
        // The watch works (a change, an answered probe): the first time, after watches that kept ending, it says so
        // and returns true.
        let recovered: @Sendable () -> Bool = {
            guard !progress.worked.exchange(true, ordering: .relaxed), failing else { return false }
            self.logger.notice("etcd \(name): the watch works again", metadata: ["endpoint": "\(name)"])
            return true
        }
        // An answered probe is a success: `status` tells when the member last answered, also while nothing
        // changes (it stayed at the last range read, and an alert on its age fired on every quiet, healthy host).
        let answered: @Sendable () -> Void = {
            _ = recovered()
            status.succeeded(revision: nil, at: self.wallClock.now())
        }
        // Events update the key space as they are read; its snapshot is applied by a task of its own, which takes
        // the latest one each time it is done with the last: a burst of changes (3000 single puts) is read at once
        // and applied in a few snapshots, not one whole key space (and one durable write) per change.
        let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        defer { changed.finish() }
        do {
            let end = try await withThrowingTaskGroup(of: EtcdGatewayClient.WatchEnd?.self) { group in
                group.addTask {
                    for await _ in changes {
                        let snapshot = keySpace.state.withLock { $0.snapshot }
                        if case .notStored(let reason) = await apply(snapshot) {
                            // The key space holds it: applied again, whole, with the next change or re-list.
                            let message =
                                "etcd \(name): the values at revision \(snapshot.revision) could not be stored: \(reason)"
                            self.logger.warning("\(message)")
                            status.failed(message, at: self.wallClock.now())
                            continue
                        }
                        status.succeeded(revision: snapshot.revision, at: self.wallClock.now())
                        _ = recovered()
                    }
                    return nil
                }
                group.addTask {
                    try await self.probing(endpoint: endpoint, key: key, rangeEnd: rangeEnd, answered: answered) {
                        try await self.gateway.watch(
                            endpoint: endpoint,
                            key: key,
                            rangeEnd: rangeEnd,
                            startRevision: self.watchStart(initial.revision),
                            timeout: self.configuration.requestTimeout,
                            connected: {
                                progress.connected.store(true, ordering: .relaxed)
                                status.scheduled(nextAttempt: nil)
                            },
                            events: { revision, events in
                                let skipped = keySpace.state.withLock { keySpace in
                                    var skipped: [String] = []
                                    for event in events {
                                        switch event {
                                        case .put(let key, let value, let modRevision)
                                        where modRevision > keySpace.revision:
                                            if let reason = keySpace.put(key: key, value: value) {
                                                skipped.append(reason)
                                            }
                                        case .delete(let key, let modRevision) where modRevision > keySpace.revision:
                                            keySpace.delete(key: key)
                                        default:
                                            break
                                        }
                                    }
                                    keySpace.advance(to: revision)
                                    return skipped
                                }
                                for entry in skipped {
                                    // At debug: the snapshot carries it, and the Sync Interactor logs each rejection once, a bounded number at a time.
                                    self.logger.debug("etcd key skipped", metadata: ["entry": "\(entry)"])
                                }
                                _ = changed.yield()
                            }
                        )
                    }
                }
                // The watch ended (or failed): what is left to apply is read again by the re-list that follows.
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let end = result { return end }
                }
                throw CancellationError()
            }
            switch end {
            case .compacted(let revision):
                return .compacted(revision, worked: progress.worked.load(ordering: .relaxed))
            }
        } catch {
            if Task.isCancelled { return .cancelled }
            return .failed(
                error,
                connected: progress.connected.load(ordering: .relaxed),
                worked: progress.worked.load(ordering: .relaxed)
            )
        }
    }

    /// Runs `watch` while probing `endpoint` every ``EtcdSourceConfiguration/probeInterval``, calling `answered` after
    /// each probe answered; a probe that fails or times out ends the watch with that error.
    private func probing<T: Sendable>(
        endpoint: (host: String, port: Int),
        key: [UInt8],
        rangeEnd: [UInt8],
        answered: @escaping @Sendable () -> Void,
        watch: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await watch() }
            group.addTask {
                while true {
                    try await self.clock.sleep(for: self.configuration.probeInterval)
                    do {
                        _ = try await self.gateway.probe(
                            endpoint: endpoint,
                            key: key,
                            rangeEnd: rangeEnd,
                            timeout: self.configuration.requestTimeout
                        )
                    } catch {
                        if Task.isCancelled { return nil }
                        throw RemoteSyncError.attempt("the member did not answer a probe: \(Self.describe(error))")
                    }
                    answered()
                }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }
}

/// The key space a watch updates as events are read and its applying task reads, shared by both.
private final class WatchedKeySpace: Sendable {
    let state: Mutex<EtcdKeySpace>

    init(_ keySpace: EtcdKeySpace) {
        self.state = Mutex(keySpace)
    }
}

/// Whether a watch connected, and whether it worked (a change, an answered probe).
private final class WatchProgress: Sendable {
    let connected = Atomic(false)
    let worked = Atomic(false)
}
