import SettingsAPI
import ViperSettings

/// A small schema used across the module's tests.
enum Fixtures {
    static let networkJSON: JSONValue = [
        "module": "network", "title": "Network", "description": "Proxy",
        "writers": ["groups": ["netadmin"], "users": ["alice"]],
        "sections": [
            [
                "id": "proxy", "title": "Proxy",
                "items": [
                    ["id": "mode", "type": "string", "choices": ["none", "manual", "auto"], "default": "none"],
                    ["id": "port", "title": "Port", "type": "int", "range": [1, 65535], "default": 3128],
                    ["id": "ignore", "type": "strings", "default": ["localhost"]],
                ],
            ],
            [
                "id": "dns", "title": "DNS",
                "items": [
                    ["id": "cache", "type": "bool", "default": true],
                    ["id": "timeout", "type": "double", "range": [0.1, 30.0], "default": 5.0],
                ],
            ],
        ],
    ]

    static var network: ModuleSchema { try! ModuleSchema(json: networkJSON) }

    /// The network schema with another default for `proxy.port`, as a reload of an edited file gives it.
    static func network(portDefault: Int) throws -> ModuleSchema {
        var json = networkJSON.objectValue!
        var sections = json["sections"]!.arrayValue!
        var proxy = sections[0].objectValue!
        var items = proxy["items"]!.arrayValue!
        var port = items[1].objectValue!
        port["default"] = .int(Int64(portDefault))
        items[1] = .object(port)
        proxy["items"] = .array(items)
        sections[0] = .object(proxy)
        json["sections"] = .array(sections)
        return try ModuleSchema(json: .object(json))
    }

    static let root = Caller(uid: 0, gid: 0, pid: 42)
    static let alice = Caller(uid: 1000, gid: 1000, pid: 43)
    static let bob = Caller(uid: 1001, gid: 1001, pid: 44)
    /// In netadmin (gid 2000) as a supplementary group.
    static let carol = Caller(uid: 1002, gid: 1002, pid: 45, groups: [2000])
}

/// Accounts for tests: alice is a named writer, carol is in netadmin, bob is nobody special.
struct FakeAccounts: AccountDirectory {
    func userID(named name: String) -> UInt32? {
        ["alice": 1000, "bob": 1001, "carol": 1002][name]
    }

    func groupID(named name: String) -> UInt32? {
        ["alice": 1000, "bob": 1001, "carol": 1002, "netadmin": 2000][name]
    }
}
