/// Who or what changed effective values: kept with each change record and shown to watchers.
public enum ChangeCause: Sendable, Hashable {
    /// A client of the daemon: set, reset or load.
    case client(uid: UInt32, pid: Int32)
    /// The remote source, at its revision (document revision, ETag or etcd revision) when known.
    case remote(revision: String?)
    /// A reload of the schemas changed a default, or added or removed a key.
    case schema
}
