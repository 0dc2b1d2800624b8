/// Capped exponential backoff with jitter, for retrying a remote source.
public struct Backoff: Sendable, Hashable {
    /// The first delay.
    public var initial: Duration
    /// The largest delay.
    public var maximum: Duration
    /// How much of each delay is randomized, 0...1 (0.2: the delay is 80–120 % of its nominal value).
    public var jitter: Double

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay before retry number `attempt` (1 for the first retry), jittered with `random` in 0..<1.
    public func delay(attempt: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        var nominal = self.initial
        for _ in 1..<max(attempt, 1) {
            nominal = nominal * 2
            if nominal >= self.maximum { break }
        }
        nominal = min(nominal, self.maximum)
        let factor = 1 + self.jitter * (2 * random - 1)
        return nominal * factor
    }

    /// A poll interval jittered with `random` in 0..<1, so that a fleet does not poll in step.
    public static func jittered(
        _ interval: Duration,
        jitter: Double = 0.1,
        random: Double = Double.random(in: 0..<1)
    )
        -> Duration
    {
        interval * (1 + jitter * (2 * random - 1))
    }
}
