import Glibc

/// The process's limit of open descriptors (`RLIMIT_NOFILE`, `LimitNOFILE=` under systemd) and the connection cap
/// it leaves room for: a daemon out of descriptors can neither accept, nor open a state file, nor reach its remote.
enum DescriptorLimit {
    /// Descriptors kept for everything but served connections: state files (at most 32 journals stay open, however
    /// many modules are written), the remote source, journald, the event loops, and the connections being turned
    /// away with an error (at most 64 at once).
    static let reserved = 128

    /// The soft limit now, or `nil` when unlimited (`RLIM_INFINITY`, all ones) or unknown.
    static func current() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max
        else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// The most connections to serve: `configured`, lowered to leave ``reserved`` descriptors below `limit`.
    static func connectionCap(configured: Int, limit: Int?) -> Int {
        guard let limit else { return configured }
        return max(1, min(configured, limit - Self.reserved))
    }
}
