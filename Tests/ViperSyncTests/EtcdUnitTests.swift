import SettingsAPI
import Testing
import ViperSettings

@testable import ViperSync

/// The etcd source's parts that need no server: URL parsing, base64, stream splitting, the key layout.
struct EtcdUnitTests {
    @Test func parsesEndpointsAndPrefix() throws {
        let configuration = try EtcdSourceConfiguration.parse(url: "etcd://h1:2379,h2,[::1]:4001/fleet/viper/")
        #expect(configuration.endpoints.map(\.host) == ["h1", "h2", "::1"])
        #expect(configuration.endpoints.map(\.port) == [2379, 2379, 4001])
        #expect(configuration.prefix == "fleet/viper")
        #expect(configuration.description == "etcd://h1:2379,h2:2379,[::1]:4001/fleet/viper")
    }

    @Test(arguments: [
        ("http://h1:2379/viper", "scheme"),
        ("etcd://h1:2379", "prefix is missing"),
        ("etcd://h1:2379/", "prefix is missing"),
        ("etcd:///viper", "no endpoint"),
        ("etcd://h1:2379,/viper", "empty endpoint"),
        ("etcd://h1:http/viper", "port must be a number"),
        ("etcd://h1:70000/viper", "port must be a number"),
        ("etcd://[::1/viper", "unclosed"),
        ("etcd://user:S3cret@h1/viper", "user or password"),
    ])
    func rejectsBadURLs(url: String, reason: String) {
        #expect {
            try EtcdSourceConfiguration.parse(url: url)
        } throws: { error in
            // The URL is named, but not a user and password in it: the message is shown to every local user.
            "\(error)".contains(reason) && "\(error)".contains(url.replacing("user:S3cret@", with: "***@"))
                && !"\(error)".contains("S3cret")
        }
    }

    @Test func base64RoundTrips() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "viper/net/recommended/proxy.mode"] {
            let encoded = EtcdBase64.encode(Array(text.utf8))
            #expect(EtcdBase64.decode(encoded) == Array(text.utf8))
        }
        #expect(EtcdBase64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(EtcdBase64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(EtcdBase64.decode("not base64!") == nil)
    }

    @Test func prefixEndIncrementsTheLastByte() {
        #expect(EtcdRemoteSource.prefixEnd(Array("viper/".utf8)) == Array("viper0".utf8))
        #expect(EtcdRemoteSource.prefixEnd([0x61, 0xFF]) == [0x62])
    }

    @Test func splitterFindsObjectsAcrossChunks() throws {
        var splitter = EtcdJSONStreamSplitter()
        let stream = Array(#"{"result":{"a":"}{\"x"}}"#.utf8) + Array("\n".utf8) + Array(#"{"b":[1,{"c":2}]}"#.utf8)
        var objects: [[UInt8]] = []
        for byte in stream {
            objects += try splitter.append([byte])
        }
        #expect(
            objects.map { String(decoding: $0, as: UTF8.self) } == [
                #"{"result":{"a":"}{\"x"}}"#, #"{"b":[1,{"c":2}]}"#,
            ]
        )
        var whole = EtcdJSONStreamSplitter()
        #expect(try whole.append(stream).count == 2)
        var bad = EtcdJSONStreamSplitter()
        #expect(throws: RemoteSyncError.self) { try bad.append(Array("42".utf8)) }
        // One message a line: a line that ends inside one was cut off (the next would be read as its rest).
        var cut = EtcdJSONStreamSplitter()
        #expect(throws: RemoteSyncError.self) {
            try cut.append(Array("{\"result\":{\"events\":[{\"kv\":\n{\"result\":{}}\n".utf8))
        }
        var small = EtcdJSONStreamSplitter(maximumObjectSize: 8)
        #expect(throws: RemoteSyncError.self) { try small.append(Array(#"{"aaaaaaaaaaaa"#.utf8)) }
    }

    @Test func keySpaceFollowsTheLayout() {
        var keys = EtcdKeySpace(prefix: "viper")
        let skipped = keys.replaceAll(
            with: [
                (Array("viper/net/recommended/proxy.mode".utf8), Array(#""auto""#.utf8)),
                (Array("viper/net/mandatory/proxy.port".utf8), Array("8080".utf8)),
                (Array("viper/net/recommended/proxy".utf8), Array("1".utf8)),
                (Array("viper/net/recommended/a.b.c".utf8), Array("1".utf8)),
                (Array("viper/net/locked/proxy.mode".utf8), Array("1".utf8)),
                (Array("viper//recommended/proxy.mode".utf8), Array("1".utf8)),
                (Array("viper/net/recommended/proxy.host".utf8), Array("".utf8)),
            ],
            revision: 7
        )
        #expect(skipped.count == 5)
        #expect(keys.rejected["viper/net/locked/proxy.mode"]?.contains("neither") == true)
        #expect(keys.snapshot.revision == "7")
        #expect(
            keys.snapshot.modules == [
                "net": RemoteModuleValues(recommended: ["proxy.mode": "auto"], mandatory: ["proxy.port": 8080])
            ]
        )
        // A value that is not JSON is skipped, and drops what the key held: etcd no longer holds a usable value.
        #expect(keys.put(key: Array("viper/net/mandatory/proxy.port".utf8), value: Array("bad".utf8)) != nil)
        #expect(keys.snapshot.modules["net"]?.mandatory == [:])
        keys.delete(key: Array("viper/net/mandatory/proxy.port".utf8))
        keys.delete(key: Array("viper/net/recommended/proxy.mode".utf8))
        keys.advance(to: 9)
        #expect(keys.snapshot.modules.isEmpty)
    }

    @Test(
        "skipped keys travel with the snapshot, sorted, with the reason: a value that is not JSON as its setting, a key off the layout as written"
    )
    func skippedKeysInSnapshot() throws {
        var keys = EtcdKeySpace(prefix: "viper")
        keys.replaceAll(
            with: [
                (Array("viper/network/bogus/a.b".utf8), Array("1".utf8)),
                (Array("viper/audio/mandatory/volume.level".utf8), Array("garbage".utf8)),
                (Array("viper/network/mandatory/proxy.port".utf8), Array("8080".utf8)),
            ],
            revision: 3
        )
        let rejected = keys.snapshot.rejected
        #expect(rejected.map(\.key) == ["audio.volume.level", "viper/network/bogus/a.b"])
        #expect(rejected.map(\.module) == ["audio", "network"])
        let garbage = try #require(rejected.first)
        #expect(
            garbage.description.hasPrefix(
                "audio.volume.level: viper/audio/mandatory/volume.level: the value is not JSON ("
            )
        )
        #expect(garbage.reason.hasSuffix("; the key sets no value until it holds JSON"))
        #expect(garbage.layer == .mandatory && garbage.description.hasSuffix(" (mandatory)"))
        #expect(rejected[1].reason.contains("neither 'recommended' nor 'mandatory'"))
        // Deleting or fixing a key takes its rejection away.
        keys.delete(key: Array("viper/network/bogus/a.b".utf8))
        keys.put(key: Array("viper/audio/mandatory/volume.level".utf8), value: Array("5".utf8))
        #expect(keys.snapshot.rejected.isEmpty)
    }
}
