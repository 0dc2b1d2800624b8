/// A remote source of recommended and mandatory values: an HTTP(S) document or an etcd cluster.
public protocol RemoteSource: Sendable {
    /// The endpoint, for status and logs, e.g. `https://config.example.org/fleet.json` or `etcd://h1:2379/viper`.
    var endpointDescription: String { get }

    /// Runs until cancelled: fetches (and, where the source can, watches), hands every complete snapshot to
    /// `apply`, records progress and failures in `status`, and retries failures with capped exponential backoff. A
    /// snapshot `apply` could not store counts as a failure: it is fetched and handed on again.
    /// Never throws: a source that fails keeps retrying; the last known good values stay in force.
    func run(
        applying apply: @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async

    /// Asks for an immediate attempt and returns once it finished, successfully or not (a bounded wait): its outcome,
    /// success or failure with the reason, is then in the status `run` records. Waits for `run` to start when it has
    /// not yet.
    ///
    /// - Throws: ``SyncInterruption`` when the attempt did not finish: the source stopped first (or had stopped), or
    ///   the calling task was cancelled. The status then says nothing about it.
    func syncNow() async throws(SyncInterruption)
}
