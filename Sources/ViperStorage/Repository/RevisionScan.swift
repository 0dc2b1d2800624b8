/// Finds the revisions named in text that does not parse: every `"revision"`, then optional spaces, `:`, optional
/// spaces and digits. Used when a state file is set aside, so that the module's revision after the repair stays
/// above every revision the lost text held. A number that does not fit an `Int64` counts as `Int64.max` (never
/// trapped on): no revision can be above it, so the module refuses writes rather than give a revision out again.
enum RevisionScan {
    /// The highest revision in `bytes`, or `nil` when none is readable.
    static func highest(in bytes: ArraySlice<UInt8>) -> Int64? {
        let key = Array("\"revision\"".utf8)
        var highest: Int64?
        var index = bytes.startIndex
        while index + key.count <= bytes.endIndex {
            guard bytes[index..<index + key.count].elementsEqual(key) else {
                index += 1
                continue
            }
            var cursor = self.skipSpaces(bytes, from: index + key.count)
            index += key.count
            guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: ":") else { continue }
            cursor = self.skipSpaces(bytes, from: cursor + 1)
            if let value = self.number(bytes, from: cursor) { highest = max(highest ?? value, value) }
        }
        return highest
    }

    /// How many lines of `bytes` are complete (end with a newline) and not blank.
    static func completeLines(in bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        var blank = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if !blank { count += 1 }
                blank = true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            default:
                blank = false
            }
        }
        return count
    }

    private static func skipSpaces(_ bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        var cursor = start
        while cursor < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
        return cursor
    }

    /// The non-negative decimal number at `start`, `Int64.max` when it does not fit; `nil` when there is none.
    private static func number(_ bytes: ArraySlice<UInt8>, from start: Int) -> Int64? {
        var value: Int64 = 0
        var cursor = start
        while cursor < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor]) {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(bytes[cursor] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return .max }
            value = sum
            cursor += 1
        }
        guard cursor > start else { return nil }
        // Written with a fraction or an exponent (`1e30`): read as a double, so that a huge one is not taken for
        // its first digits.
        if cursor < bytes.endIndex, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[cursor]) {
            var end = cursor + 1
            while end < bytes.endIndex, "0123456789+-eE.".utf8.contains(bytes[end]) { end += 1 }
            if let number = Double(String(decoding: bytes[start..<end], as: UTF8.self)) {
                // 1e400 reads as infinity: beyond 64 bits all the same.
                return !number.isFinite || number >= 9.2e18 ? .max : max(value, Int64(number))
            }
        }
        return value
    }
}

extension Int64 {
    /// One more, or `Int64.max` when there is no more: for revisions read from disk, which must never trap.
    var incrementedSaturating: Int64 { self == .max ? .max : self + 1 }
}
