/// Retrying a target whose apply failed in a way that can heal by itself (a full disk freed, a read-only file
/// system remounted, a service whose reload failed that works again): after 1 s, doubling to 5 min, until it is
/// applied, until a change applies it anyway, or until it fails in a way that cannot heal (a check that refuses the
/// bytes). ``TargetRetryService`` waits out each delay. Only a retry that fails moves the next one further away: the
/// applies changes make meanwhile leave it due when it was, so that the wait follows how long the target has been
/// failing, not how often it changed.
extension ApplyInteractor {
    /// A retry the Interactor asks for: the target, the number of the attempt, and how long to wait before it.
    public struct RetryRequest: Sendable, Equatable {
        public var target: String
        public var attempt: Int
        public var delay: Duration
    }

    /// The next attempt at a target, for its status.
    struct PendingRetry: Sendable {
        var attempt: Int
        /// When it is due, in seconds since the epoch.
        var at: Double
    }

    /// The first delay, and the longest.
    static let firstRetryDelay = Duration.seconds(1)
    static let longestRetryDelay = Duration.seconds(300)

    /// The wait before attempt `attempt` (1, 2, 3…): 1 s, doubling, at most 5 min.
    static func retryDelay(attempt: Int) -> Duration {
        var delay = Self.firstRetryDelay
        for _ in 1..<max(1, attempt) where delay < Self.longestRetryDelay { delay *= 2 }
        return min(delay, Self.longestRetryDelay)
    }

    /// After applying `target`: asks for a retry when `outcome` can heal by itself, forgets any retry otherwise.
    func scheduleRetry(of target: ApplyTarget, after outcome: ApplyOutcome) {
        let wasRetry = self.retrying.remove(target.name) != nil
        guard outcome.retryable else {
            if self.retries.removeValue(forKey: target.name) != nil, outcome.succeeded {
                self.logger.notice("\(target.destination) (target \(target.name)) applied again after its failure")
            }
            return
        }
        if let pending = self.retries[target.name], !wasRetry {
            // Applied by a change while a retry is pending: that retry still comes when it was due.
            self.logger.debug(
                "\(target.destination) (target \(target.name)) still fails; retry \(pending.attempt) stays due",
                metadata: ["target": "\(target.name)", "retry": "\(pending.attempt)"]
            )
            return
        }
        let attempt = (self.retries[target.name]?.attempt ?? 0) + 1
        let delay = Self.retryDelay(attempt: attempt)
        let seconds = delay.components.seconds
        self.retries[target.name] = PendingRetry(attempt: attempt, at: self.clock.now() + Double(seconds))
        self.logger.notice(
            "\(target.destination) (target \(target.name)): trying again in \(seconds) s (retry \(attempt))",
            metadata: ["target": "\(target.name)", "retry": "\(attempt)"]
        )
        self.retryContinuation.yield(RetryRequest(target: target.name, attempt: attempt, delay: delay))
    }

    /// A retry that is due: applies the target again, unless it was applied meanwhile (by a change, or a SIGHUP)
    /// or is gone.
    public func retry(target name: String, attempt: Int) async {
        guard self.retries[name]?.attempt == attempt, self.hasTarget(name) else { return }
        self.logger.info("retrying target \(name) (retry \(attempt))", metadata: ["target": "\(name)"])
        self.retrying.insert(name)
        self.markDirty(target: name)
        await self.applyDirtyWhenSettled()
    }
}
