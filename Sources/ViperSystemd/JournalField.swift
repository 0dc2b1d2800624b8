package import Logging

/// The journal's field rules: names for metadata keys, and syslog priorities for log levels.
package enum JournalField {
    /// The fields ``JournalLogHandler`` writes itself; metadata keys that map to one of them get a prefix.
    package static let handlerFields: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER_LABEL",
    ]

    /// The prefix that makes a metadata key a valid field name that is not one of the ``handlerFields``.
    package static let prefix = "X_"

    /// The longest field name journald accepts.
    package static let maximumNameLength = 64

    /// The journal field name for a logger metadata key.
    ///
    /// ASCII letters are upper-cased and every other character but digits and `_` becomes `_`, so
    /// `client_uid` is `CLIENT_UID` and `error.message` is `ERROR_MESSAGE`. journald drops fields whose names
    /// start with a digit, and treats those starting with `_` as trusted fields set by itself, so such names,
    /// the empty name and the ``handlerFields`` get the ``prefix`` (`_id` is `X__ID`, `message` is `X_MESSAGE`).
    /// Names are cut to ``maximumNameLength`` characters.
    package static func name(forMetadataKey key: String) -> String {
        var name = String(
            String.UnicodeScalarView(
                key.unicodeScalars.map { scalar in
                    switch scalar {
                    case "A"..."Z", "0"..."9", "_": scalar
                    case "a"..."z": Unicode.Scalar(scalar.value - 0x20)!
                    default: "_"
                    }
                }
            )
        )
        let startsBadly = name.first.map { $0 == "_" || $0.isASCII && $0.isNumber } ?? true
        if startsBadly || Self.handlerFields.contains(name) {
            name = Self.prefix + name
        }
        return String(name.prefix(Self.maximumNameLength))
    }

    /// The syslog priority (`PRIORITY=`) of a log level: 7 debug (for trace too), 6 info, 5 notice, 4 warning,
    /// 3 error, 2 critical.
    package static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
