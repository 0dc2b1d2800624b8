import Logging
import Testing
import ViperSystemd

@Suite("JournalField")
struct JournalFieldTests {
    @Test(
        "the audit metadata keys become the documented fields",
        arguments: [
            ("module", "MODULE"), ("key", "KEY"), ("old_value", "OLD_VALUE"), ("new_value", "NEW_VALUE"),
            ("client_uid", "CLIENT_UID"), ("client_pid", "CLIENT_PID"), ("source", "SOURCE"),
        ]
    )
    func auditKeys(key: String, field: String) {
        #expect(JournalField.name(forMetadataKey: key) == field)
    }

    @Test(
        "characters outside A-Z, 0-9 and _ become _",
        arguments: [
            ("error.message", "ERROR_MESSAGE"), ("fd-name", "FD_NAME"), ("Mixed Case", "MIXED_CASE"),
            ("x9_y", "X9_Y"), ("a/b:c", "A_B_C"), ("naïve", "NA_VE"),
        ]
    )
    func sanitizes(key: String, field: String) {
        #expect(JournalField.name(forMetadataKey: key) == field)
    }

    @Test(
        "names journald would drop or treat as trusted get a prefix: a leading digit or underscore, or empty",
        arguments: [("_pid", "X__PID"), ("2fa", "X_2FA"), ("", "X_"), ("__", "X___"), ("été", "X__T_")]
    )
    func prefixesInvalidStarts(key: String, field: String) {
        #expect(JournalField.name(forMetadataKey: key) == field)
    }

    @Test("metadata cannot override the handler's own fields", arguments: JournalField.handlerFields.sorted())
    func prefixesHandlerFields(field: String) {
        #expect(JournalField.name(forMetadataKey: field.lowercased()) == "X_" + field)
        #expect(JournalField.name(forMetadataKey: field) == "X_" + field)
    }

    @Test("names are cut to 64 characters")
    func truncates() {
        let name = JournalField.name(forMetadataKey: String(repeating: "k", count: 100))
        #expect(name == String(repeating: "K", count: 64))
        #expect(JournalField.name(forMetadataKey: "_" + String(repeating: "k", count: 100)).count == 64)
    }

    @Test(
        "log levels map to syslog priorities",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ]
    )
    func priorities(level: Logger.Level, priority: Int) {
        #expect(JournalField.priority(of: level) == priority)
    }
}
