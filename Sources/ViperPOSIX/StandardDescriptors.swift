import Glibc

/// Standard input, output and error kept in place: a program started with one of them closed (`cmd >&-`) would
/// otherwise get that number for the next file it opens, and write its output into it, e.g. into the socket of the
/// daemon it talks to.
public enum StandardDescriptors {
    /// Puts `/dev/null` on each of descriptors 0, 1 and 2 that is closed, opened so that using it fails as the
    /// closed descriptor did (`EBADF`): standard input write-only, standard output and error read-only.
    public static func reserve() {
        for descriptor in Int32(0)...2 where Glibc.fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let placed = Glibc.open("/dev/null", (descriptor == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
            // The lowest free number is the closed one, unless a lower one was closed too (reserved just before).
            if placed >= 0, placed != descriptor {
                _ = Glibc.dup2(placed, descriptor)
                _ = Glibc.close(placed)
            }
            // Not closed on exec: settingsctl-full, run by settingsctl, must find it in place too.
            _ = Glibc.fcntl(descriptor, F_SETFD, 0)
        }
    }

    /// Whether `journalStream`, a `JOURNAL_STREAM` value (`<device>:<inode>`, which systemd sets for a service whose
    /// output goes to the journal), names the device and inode of `descriptor`: the check `systemd.exec(5)`
    /// documents, which tells a service from a process it started with other output.
    public static func isJournalStream(_ descriptor: Int32, journalStream: String?) -> Bool {
        guard let journalStream, let colon = journalStream.firstIndex(of: ":"),
            let device = UInt64(journalStream[..<colon]),
            let inode = UInt64(journalStream[journalStream.index(after: colon)...])
        else { return false }
        var status = stat()
        guard Glibc.fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Whether `descriptor` can be written to: `EBADF` when it is closed or not open for writing.
    public static func writable(_ descriptor: Int32) -> Int32? {
        Glibc.write(descriptor, "", 0) < 0 ? errno : nil
    }
}
