public import Logging
import SettingsAPI

/// A swift-log `LogHandler` for standard error (`StreamLogHandler`'s format) that keeps every entry on one line:
/// control characters in the message and in metadata values are written escaped (`\n`, `\r`, `\t`, `\u{1b}`), as are
/// the invisible characters that reorder the text around them (bidirectional marks, overrides, isolates).
///
/// Log messages carry text from outside: a method name a client sent, a remote document's revision or key. Written
/// raw, a newline in it starts a line that looks like an entry of its own (a forged audit line), and an escape
/// sequence acts on the terminal. The journal keeps fields apart, so ``JournalLogHandler`` needs none of this.
public struct LineLogHandler: LogHandler {
    private var stream: StreamLogHandler

    /// A handler writing to standard error, with `LoggingSystem`'s metadata provider.
    public init(label: String) {
        self.stream = StreamLogHandler.standardError(label: label)
    }

    /// The least severe level logged.
    public var logLevel: Logger.Level {
        get { self.stream.logLevel }
        set { self.stream.logLevel = newValue }
    }

    /// Metadata added to every entry, kept escaped.
    public var metadata: Logger.Metadata {
        get { self.stream.metadata }
        set { self.stream.metadata = newValue.mapValues(Self.oneLine) }
    }

    /// Adds metadata, for example from task locals, to every entry.
    public var metadataProvider: Logger.MetadataProvider? {
        get { self.stream.metadataProvider }
        set { self.stream.metadataProvider = newValue }
    }

    /// Gets or sets one metadata item added to every entry.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.stream.metadata[key] }
        set { self.stream.metadata[key] = newValue.map(Self.oneLine) }
    }

    /// Writes the event on one line.
    public func log(event: LogEvent) {
        var event = event
        let message = event.message.description
        if Self.needsEscape(message) { event.message = "\(Self.escaped(message))" }
        event.metadata = event.metadata?.mapValues(Self.oneLine)
        if let provider = self.metadataProvider {
            // The provider's values are merged by the stream handler: given escaped, with the call's winning.
            let provided = provider.get().mapValues(Self.oneLine)
            event.metadata = provided.merging(event.metadata ?? [:]) { _, call in call }
        }
        self.stream.log(event: event)
    }

    /// `value` with every string in it escaped.
    static func oneLine(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): Self.needsEscape(text) ? .string(Self.escaped(text)) : value
        case .stringConvertible(let convertible):
            Self.needsEscape(convertible.description) ? .string(Self.escaped(convertible.description)) : value
        case .array(let values): .array(values.map(Self.oneLine))
        case .dictionary(let values): .dictionary(values.mapValues(Self.oneLine))
        }
    }

    /// `text` as this handler writes it: control and reordering characters escaped, for a message written to
    /// standard error without a logger.
    public static func escaping(_ text: String) -> String {
        Self.needsEscape(text) ? Self.escaped(text) : text
    }

    /// Whether `text` holds a character written escaped.
    static func needsEscape(_ text: String) -> Bool {
        text.unicodeScalars.contains { Self.escape(of: $0) != nil }
    }

    /// `text` with each control or reordering character written as an escape.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if let escape = Self.escape(of: scalar) {
                result += escape
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The escape of `scalar`: `\n`, `\r`, `\t`, `\\u{HEX}` for any other character ``QuotedText`` escapes (C0 and C1
    /// controls, DEL, the line and paragraph separators) or finds invisible (the reordering marks, U+FEFF); `nil` for
    /// a character written as it is.
    private static func escape(of scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x0A: "\\n"
        case 0x0D: "\\r"
        case 0x09: "\\t"
        default:
            QuotedText.escaped(scalar) != nil || QuotedText.isInvisible(scalar)
                ? "\\u{\(String(scalar.value, radix: 16))}" : nil
        }
    }
}
