// What the etcd JSON gateway sends: a watch stream cut into objects by the splitter (fed in two chunks, cut where
// the first byte says); in each object, every {"key": BASE64, "value": BASE64} found under "kvs" or
// "result.events[].kv" is decoded and put into the key space, which parses the key's layout and the value's JSON.
import FuzzDriver
import Glibc
import SettingsAPI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEtcdPayload(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    var splitter = EtcdJSONStreamSplitter(maximumObjectSize: 4096)
    var space = EtcdKeySpace(prefix: "viper")
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for piece in [bytes[..<cut], bytes[cut...]] {
        guard let objects = try? splitter.append(piece) else { return 0 }
        for object in objects {
            guard let json = try? JSONValue(parsing: object) else { continue }
            var pairs: [JSONValue] = json["kvs"]?.arrayValue ?? []
            for event in json["result"]?["events"]?.arrayValue ?? [] {
                if let kv = event["kv"] { pairs.append(kv) }
            }
            for kv in pairs {
                guard let key = kv["key"]?.stringValue.flatMap(EtcdBase64.decode),
                    let value = EtcdBase64.decode(kv["value"]?.stringValue ?? "")
                else { continue }
                _ = space.put(key: key, value: value)
                precondition(EtcdBase64.decode(EtcdBase64.encode(value)) == value, "base64 round trip")
            }
            if let revision = json["header"]?["revision"]?.intValue { space.advance(to: revision) }
        }
    }
    _ = space.snapshot
    return 0
}

runFuzzer(fuzzEtcdPayload)
