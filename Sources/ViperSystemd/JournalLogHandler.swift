import CSystemd
import Glibc
public import Logging
import ViperPOSIX

/// A swift-log `LogHandler` that writes native journal entries (`sd_journal_sendv(3)`) with structured fields.
///
/// Each entry has `MESSAGE`, `PRIORITY` (the syslog level), `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`,
/// `CODE_FUNC`, `LOGGER_LABEL` when a label is given, and one field per metadata item, named as
/// ``JournalField/name(forMetadataKey:)`` says: `client_uid` becomes `CLIENT_UID`, so
/// `journalctl MODULE=network CLIENT_UID=1000` finds the entries logged with that metadata. Metadata is merged as
/// `StreamLogHandler` does: the handler's, then the metadata provider's, then the log call's, each overriding the
/// one before; an error passed to the call adds `ERROR_MESSAGE` and `ERROR_TYPE`. Values are written as their
/// descriptions and may span lines.
///
/// If the journal cannot be reached, the message goes to standard error with a `<priority>` prefix.
///
/// ```swift
/// let logger = Logger(label: "viper-settingsd") { label -> any LogHandler in
///     if JournalLogHandler.isConnectedToJournal() {
///         return JournalLogHandler(identifier: "viper-settingsd", label: label)
///     }
///     return LineLogHandler(label: label)
/// }
/// ```
public struct JournalLogHandler: LogHandler {
    /// Metadata added to every entry.
    public var metadata: Logger.Metadata = [:]

    /// The least severe level logged.
    public var logLevel: Logger.Level = .info

    /// Adds metadata, for example from task locals, to every entry.
    public var metadataProvider: Logger.MetadataProvider?

    private let identifier: String
    private let label: String?

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - identifier: `SYSLOG_IDENTIFIER`, the name `journalctl -t` selects and prints: the program's name.
    ///   - label: `LOGGER_LABEL`, usually the logger's label; `nil` to leave the field out.
    ///   - metadataProvider: Adds metadata to every entry; `LoggingSystem`'s by default.
    public init(
        identifier: String,
        label: String? = nil,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.identifier = identifier
        self.label = label
        self.metadataProvider = metadataProvider
    }

    /// Gets or sets one metadata item added to every entry.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    /// Writes the event to the journal.
    public func log(event: LogEvent) {
        let fields = self.fields(for: event)
        if Self.send(fields) < 0 {
            Self.writeToStandardError(priority: JournalField.priority(of: event.level), message: "\(event.message)")
        }
    }

    /// The `FIELD=value` strings of the entry for `event`, the handler's fields first, then the metadata by key.
    package func fields(for event: LogEvent) -> [String] {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(JournalField.priority(of: event.level))",
            "SYSLOG_IDENTIFIER=\(self.identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        if let label = self.label {
            fields.append("LOGGER_LABEL=\(label)")
        }
        var metadata = self.metadata
        if let provided = self.metadataProvider?.get() {
            metadata.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata {
            metadata.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append("\(JournalField.name(forMetadataKey: key))=\(value)")
        }
        return fields
    }

    /// Whether standard error is connected to the journal: `JOURNAL_STREAM` names its device and inode.
    ///
    /// systemd sets `JOURNAL_STREAM=<device>:<inode>` for services whose output goes to the journal; comparing
    /// it with `fstat(2)` of standard error is the check `systemd.exec(5)` documents, and tells a service from a
    /// process it started with other output, or one run by hand from a service's shell. The journal's socket must be
    /// there too: `sd_journal_sendv` reports success when it is missing (journald is not running), and every entry,
    /// the audit trail's included, would be lost; standard error is used then.
    public static func isConnectedToJournal(socket: String = "/run/systemd/journal/socket") -> Bool {
        self.isConnected(journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) }, descriptor: 2)
            && access(socket, F_OK) == 0
    }

    /// Whether `journalStream`, a `JOURNAL_STREAM` value, names the device and inode of `descriptor`.
    package static func isConnected(journalStream: String?, descriptor: Int32) -> Bool {
        StandardDescriptors.isJournalStream(descriptor, journalStream: journalStream)
    }

    /// Sends one entry made of `fields` with `sd_journal_sendv`; returns its result, negative on failure.
    private static func send(_ fields: [String]) -> Int32 {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.utf8)
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else {
                return -EINVAL
            }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }

    /// The fallback: `<priority>message` on standard error, a line the journal's stream reader also understands.
    private static func writeToStandardError(priority: Int, message: String) {
        let line = "<\(priority)>" + String(message.map { $0.isNewline ? " " : $0 }) + "\n"
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR {
                continue
            }
            guard written > 0 else {
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
