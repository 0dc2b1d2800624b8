import SettingsAPI
import Testing

@testable import SettingsBench

@Suite("settings-bench wire formats")
struct BenchProtocolTests {
    private func end(_ wire: BenchProtocol, _ text: String) -> Int? {
        Array(text.utf8).withUnsafeBufferPointer { wire.replyEnd(in: $0) }
    }

    @Test("Varlink requests are one NUL-terminated call of io.viper.settings")
    func varlinkRequests() throws {
        let get = BenchProtocol.varlink.request(.get, key: "network.proxy.port", value: 0)
        #expect(get.last == 0)
        let getCall = try JSONValue(parsing: String(decoding: get.dropLast(), as: UTF8.self))
        #expect(getCall["method"] == "io.viper.settings.Get")
        #expect(getCall["parameters"]?["key"] == "network.proxy.port")
        let set = BenchProtocol.varlink.request(.set, key: "network.proxy.port", value: 42)
        let setCall = try JSONValue(parsing: String(decoding: set.dropLast(), as: UTF8.self))
        #expect(setCall["method"] == "io.viper.settings.Set")
        #expect(setCall["parameters"]?["value"] == 42)
    }

    @Test("RESP requests are arrays of bulk strings, as redis-cli sends them")
    func respRequests() {
        #expect(
            String(decoding: BenchProtocol.resp.request(.get, key: "k", value: 0), as: UTF8.self)
                == "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
        )
        #expect(
            String(decoding: BenchProtocol.resp.request(.set, key: "key", value: 123), as: UTF8.self)
                == "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$3\r\n123\r\n"
        )
    }

    @Test("a Varlink reply ends after its NUL byte; an error reply is told from a normal one")
    func varlinkReplies() {
        #expect(self.end(.varlink, #"{"parameters":{}}"#) == nil)
        #expect(self.end(.varlink, "{\"parameters\":{}}\0{\"par") == 18)
        let error = Array("{\"error\":\"io.viper.settings.NoSuchKey\",\"parameters\":{}}\0".utf8)
        #expect(error.withUnsafeBufferPointer { BenchProtocol.varlink.isError($0) })
        let normal = Array("{\"parameters\":{\"error\":1}}\0".utf8)
        #expect(!normal.withUnsafeBufferPointer { BenchProtocol.varlink.isError($0) })
    }

    @Test("RESP replies are found whole, also split anywhere, bulk strings with CRLF inside and nested arrays")
    func respReplies() {
        let replies = [
            "+OK\r\n", "-ERR wrong\r\n", ":42\r\n", "$-1\r\n", "$4\r\na\r\nb\r\n", "*2\r\n$1\r\nx\r\n*1\r\n:1\r\n",
        ]
        for reply in replies {
            #expect(self.end(.resp, reply) == reply.utf8.count, "\(reply.debugDescription)")
            #expect(self.end(.resp, reply + "+next\r\n") == reply.utf8.count, "\(reply.debugDescription)")
            let bytes = Array(reply.utf8)
            for cut in 0..<bytes.count {
                let partial = bytes[0..<cut].withUnsafeBufferPointer { BenchProtocol.resp.replyEnd(in: $0) }
                #expect(partial == nil, "\(reply.debugDescription) cut at \(cut)")
            }
        }
        let error = Array("-ERR wrong\r\n".utf8)
        #expect(error.withUnsafeBufferPointer { BenchProtocol.resp.isError($0) })
    }
}
