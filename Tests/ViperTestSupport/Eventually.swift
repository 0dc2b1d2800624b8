/// Waits for a condition that the code under test makes true in its own time (a file written, a sleep started):
/// polls it, and gives up only after a generous bound, which is not a measure of speed.
public enum Eventually {
    /// Whether `condition` became true within `limit`.
    public static func wait(
        limit: Duration = .seconds(60),
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            if try await condition() { return true }
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))  // polling interval, not a delay the test relies on
        }
    }
}
