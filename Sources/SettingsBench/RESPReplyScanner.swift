/// Finds where a RESP2 reply ends, without decoding it: `+`, `-` and `:` lines, `$` bulk strings (`$-1` for nil)
/// and `*` arrays of replies.
enum RESPReplyScanner {
    /// The index after the reply that starts at `start`, or `nil` while `bytes` holds only part of it.
    static func end(of bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let lineEnd = Self.lineEnd(bytes, from: start) else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "$"):
            guard let length = Self.number(bytes, from: start + 1, to: lineEnd - 2) else { return nil }
            if length < 0 { return lineEnd }
            let end = lineEnd + length + 2
            return end <= bytes.count ? end : nil
        case UInt8(ascii: "*"):
            guard let count = Self.number(bytes, from: start + 1, to: lineEnd - 2) else { return nil }
            var next = lineEnd
            for _ in 0..<max(count, 0) {
                guard let end = Self.end(of: bytes, from: next) else { return nil }
                next = end
            }
            return next
        default:
            return lineEnd
        }
    }

    /// The index after the `\r\n` that ends the line starting at `start`.
    private static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "\r") && bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
            index += 1
        }
        return nil
    }

    /// The decimal number in `bytes[start..<end]`, with an optional leading minus sign.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end else { return nil }
        var negative = false
        var index = start
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value = 0
        while index < end {
            let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
            index += 1
        }
        return negative ? -value : value
    }
}
