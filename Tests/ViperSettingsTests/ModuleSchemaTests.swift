import SettingsAPI
import Testing
import ViperSettings

@Suite("Module schemas")
struct ModuleSchemaTests {
    @Test("a valid schema loads with sections, items and writers")
    func loads() throws {
        let schema = Fixtures.network
        #expect(schema.name == "network")
        #expect(schema.sections.map(\.id) == ["proxy", "dns"])
        #expect(schema.item(at: "proxy.port")?.defaultValue == .int(3128))
        #expect(schema.writers.groups == ["netadmin"])
        #expect(schema.items.count == 5)
    }

    @Test("stored values the schema does not accept are found in every layer, with the reason, for the log")
    func brokenStoredValues() {
        var state = ModuleState(revision: 4)
        state.local = ["proxy.port": .int(99_999), "proxy.mode": .string("manual"), "proxy.gone": .bool(true)]
        state.mandatory = ["proxy.port": .string("abc")]
        let broken = Fixtures.network.brokenValues(in: state)
        #expect(broken.map(\.path) == ["proxy.gone", "proxy.port", "proxy.port"])
        #expect(broken.map(\.layer) == [.local, .local, .mandatory])
        #expect(broken[0].reason == "no such key in the schema")
        #expect(
            Fixtures.network.message(for: broken[1])
                == "Stored value of network.proxy.port in the local layer breaks the schema and is ignored: 99999: "
                + "must be within 1..65535"
        )
        #expect(Fixtures.network.metadata(for: broken[2])["layer"] == "mandatory")
        #expect(Fixtures.network.brokenValues(in: ModuleState(revision: 0)).isEmpty)
    }

    @Test("a default outside the range names the JSON path")
    func defaultOutOfRange() throws {
        var json = Fixtures.networkJSON
        json = Self.replacingItem(json, section: 0, item: 1, key: "default", with: 70000)
        #expect(
            throws: SchemaError(path: "$.sections[0].items[1].default", reason: "default 70000 must be within 1..65535")
        ) {
            try ModuleSchema(json: json)
        }
    }

    @Test("duplicate item ids are rejected")
    func duplicateIDs() throws {
        let json = Self.replacingItem(Fixtures.networkJSON, section: 0, item: 1, key: "id", with: "mode")
        #expect(throws: SchemaError(path: "$.sections[0].items[1].id", reason: "duplicate item id 'mode'")) {
            try ModuleSchema(json: json)
        }
    }

    @Test("an unknown type is rejected with the types that exist")
    func unknownType() throws {
        let json = Self.replacingItem(Fixtures.networkJSON, section: 1, item: 0, key: "type", with: "boolean")
        let error = #expect(throws: SchemaError.self) { try ModuleSchema(json: json) }
        #expect(error?.path == "$.sections[1].items[0].type")
        #expect(error?.reason.contains("bool, int, double, string or strings") == true)
    }

    @Test("a missing module name is reported")
    func missingName() {
        #expect(throws: SchemaError(path: "$.module", reason: "missing")) {
            try ModuleSchema(json: ["sections": []])
        }
    }

    static func replacingItem(
        _ json: JSONValue,
        section: Int,
        item: Int,
        key: String,
        with value: JSONValue
    )
        -> JSONValue
    {
        guard case .object(var root) = json, case .array(var sections) = root["sections"]!,
            case .object(var sectionObject) = sections[section], case .array(var items) = sectionObject["items"]!,
            case .object(var itemObject) = items[item]
        else { fatalError("fixture shape") }
        itemObject[key] = value
        items[item] = .object(itemObject)
        sectionObject["items"] = .array(items)
        sections[section] = .object(sectionObject)
        root["sections"] = .array(sections)
        return .object(root)
    }
}
