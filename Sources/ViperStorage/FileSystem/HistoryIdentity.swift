import Glibc
import ViperSettings

/// The identity of the change history a state directory holds: a random token of eight lowercase hex digits kept in
/// `STATE/history`, made the first time the daemon starts on a directory without one (a new directory, or one whose
/// state was reset by removing its files). Watch cursors carry it (`5f3a9c01/network:5`), so that a cursor of another
/// history (another state directory, or this one's before a reset) starts over with a resync rather than being
/// taken as a position in this one, whatever revisions the two histories reached.
///
/// The file is read and written as the other state files are: never through a symbolic link, replaced atomically
/// (temporary file, fsync, rename, directory fsync). Every function blocks.
public enum HistoryIdentity {
    /// The file's name in the state directory.
    public static let fileName = "history"

    /// The token of `stateDirectory`'s history: the one its file holds, else (no file, or one that does not hold a
    /// token) a new one, stored when `store` is true (the daemon holds the directory's lock). `nil` when a new one
    /// could not be stored, or the file cannot be read (no permission, a symbolic link, a directory: it may hold
    /// the history, and is left as it is), with the reason: cursors then carry no history, and one that does starts
    /// over.
    public static func loadOrCreate(
        stateDirectory: String,
        store: Bool
    ) -> (token: String?, problem: StorageError?) {
        let directory = StateDirectory(path: stateDirectory)
        let path = "\(directory.path)/\(Self.fileName)"
        var problem: StorageError?
        do throws(StorageError) {
            if let bytes = try FileOperations.readFile(path, limit: 4096) {
                // As written: the token and a newline.
                let text = String(
                    decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...],
                    as: UTF8.self
                )
                if WatchCursor.isHistory(text) { return (text, nil) }
                problem = StorageError(
                    "\(path) does not hold a history token (eight lowercase hex digits); a new one replaces it",
                    errno: EINVAL
                )
            }
        } catch {
            let message = """
                \(error.message); until it can be read, cursors name no history, and a watcher resuming from one that \
                does starts over
                """
            return (nil, StorageError(message, errno: error.errno))
        }
        guard store else { return (nil, problem) }
        let token = Self.makeToken()
        do throws(StorageError) {
            try directory.replace(path, with: Array("\(token)\n".utf8), temporary: "\(directory.path)/.history.tmp")
            try directory.syncDirectory()
            return (token, problem)
        } catch {
            return (nil, error)
        }
    }

    /// Eight random lowercase hex digits.
    static func makeToken() -> String {
        let value = UInt32.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
