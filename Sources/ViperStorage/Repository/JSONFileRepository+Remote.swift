public import ViperSettings

/// Remote updates: the remote layers are a cache stored in `NAME.remote.json`, so that they survive a restart
/// without network.
extension JSONFileRepository {
    /// Lets `decide` compute new remote layers and revision from the module's newest state (pending local updates
    /// included), replaces the module's remote file and returns once it is durable.
    ///
    /// The remote file goes through the same group commit as the journal records: it is serialized with
    /// ``update(module:_:)`` per module, shares the batch's directory sync, and a failure marks the module failed as
    /// for a journal write. The revision is stored in the remote file, and in a journal record that changes nothing
    /// (appended and synced before the remote file is replaced), so that the revision survives a remote file set
    /// aside as corrupt; on loading, the module's revision is the greatest of the files'. A `decide` returning `nil`
    /// touches no file.
    public func updateRemote(
        module: String,
        _ decide: @Sendable (ModuleState) throws -> RemoteChange?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        try await self.change(
            module: module,
            decide: decide,
            applied: { $0.applied(to: $1) },
            write: { change, after in
                PendingWrite(
                    module: module,
                    remoteFile: RemoteLayers.encode(module: module, state: after),
                    after: after,
                    record: change.record
                )
            }
        )
    }
}
