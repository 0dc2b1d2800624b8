import Foundation
import Testing
import ViperPOSIX

@Suite("trimming the executable's resident code")
struct ExecutableMemoryTests {
    /// Kilobytes resident in the executable's r-x mappings, from /proc/self/smaps.
    private static func residentCode() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var inCode = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 5, fields[0].contains("-"), fields[0].first?.isHexDigit == true {
                inCode =
                    fields.count >= 6 && fields[5...].joined(separator: " ") == executable
                    && fields[1].hasPrefix("r-x")
            } else if inCode, fields.first == "Rss:", fields.count > 1, let kilobytes = Int(fields[1]) {
                total += kilobytes
            }
        }
        return total
    }

    @Test("the code pages start-up touched are dropped, and the process goes on running the code it needs")
    func trimsAndKeepsRunning() throws {
        let before = try Self.residentCode()
        #expect(before > 1024, "a test binary with Foundation has megabytes of code resident")
        #expect(ExecutableMemory.trimCode() >= 1)
        let after = try Self.residentCode()
        #expect(after < before, "resident code \(before) KiB before, \(after) KiB after")
        // The dropped pages come back from the file when used: Foundation and the runtime still work.
        let text = try JSONSerialization.data(withJSONObject: ["trimmed": after])
        #expect(String(decoding: text, as: UTF8.self).contains("trimmed"))
    }
}
