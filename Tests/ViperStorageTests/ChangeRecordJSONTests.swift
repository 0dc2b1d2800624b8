import SettingsAPI
import Testing
import ViperSettings

@testable import ViperStorage

@Suite("Change records in journal lines")
struct ChangeRecordJSONTests {
    static let records: [ChangeRecord] = [
        ChangeRecord(
            revision: 8,
            cause: .client(uid: 1000, pid: 4242),
            changes: [
                SettingChange(path: "proxy.port", old: .int(3128), oldLayer: .default, new: .int(8080), layer: .local)
            ]
        ),
        ChangeRecord(revision: 9, cause: .remote(revision: "r42"), changes: []),
        ChangeRecord(
            revision: 10,
            cause: .remote(revision: nil),
            changes: [
                SettingChange(
                    path: "proxy.host",
                    old: nil,
                    oldLayer: nil,
                    new: .string("a \"b\"\n"),
                    layer: .mandatory
                ),
                SettingChange(path: "dns.servers", old: .strings(["1.1.1.1"]), oldLayer: .local, new: nil, layer: nil),
                SettingChange(
                    path: "dns.timeout",
                    old: .double(0.5),
                    oldLayer: .recommended,
                    new: .bool(true),
                    layer: nil
                ),
            ]
        ),
        ChangeRecord(revision: 11, cause: .schema, changes: []),
    ]

    @Test("the members written straight to text are those of the record's JSON, and read back", arguments: Self.records)
    func sameAsJSON(_ record: ChangeRecord) throws {
        var text = Array("{\"revision\":\(record.revision)".utf8)
        ChangeRecordJSON.write(membersOf: record, into: &text)
        text.append(UInt8(ascii: "}"))
        var expected = Array("{\"revision\":\(record.revision),".utf8)
        let members = ChangeRecordJSON.members(of: record)
        for (index, member) in members.enumerated() {
            if index > 0 { expected.append(UInt8(ascii: ",")) }
            JSONValue.string(member.key).write(into: &expected)
            expected.append(UInt8(ascii: ":"))
            member.value.write(into: &expected)
        }
        expected.append(UInt8(ascii: "}"))
        #expect(String(decoding: text, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        let parsed = try JSONValue(parsing: text)
        #expect(ChangeRecordJSON.record(revision: record.revision, in: parsed) == record)
    }
}
