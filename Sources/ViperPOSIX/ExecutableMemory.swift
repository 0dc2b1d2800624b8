import Glibc

/// The resident memory of the running executable's code.
///
/// An executable with the Swift runtime and Foundation linked in maps tens of megabytes of code and constant data
/// in one executable mapping, of which a daemon uses little once started. On each page fault the kernel maps the
/// pages around the one touched too ("fault-around", 64 KiB), so start-up (runtime and library initialisation,
/// loading schemas) leaves some 14 to 18 MiB of it resident. ``trimCode()`` drops those pages from the process;
/// each comes back, from the page cache, when it is used again.
public enum ExecutableMemory {
    /// Drops the resident pages of the executable's code mappings: those mapped `r-x` that hold no private
    /// (copied-on-write) page, so that they are the file's own bytes and dropping them loses nothing. Writable and
    /// relocated mappings are never touched. Returns how many mappings were trimmed; best effort.
    @discardableResult
    public static func trimCode() -> Int {
        var pathBuffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &pathBuffer, pathBuffer.count - 1)
        guard length > 0 else { return 0 }
        let executable = String(decoding: pathBuffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var trimmed = 0
        for mapping in Self.codeMappings(of: executable) where mapping.privatePages == 0 {
            if madvise(mapping.start, mapping.length, MADV_DONTNEED) == 0 { trimmed += 1 }
        }
        return trimmed
    }

    private struct Mapping {
        var start: UnsafeMutableRawPointer
        var length: Int
        /// Kilobytes of anonymous (copied-on-write) pages in the mapping.
        var privatePages = 0
    }

    /// The `r-x` mappings of `executable`, read from /proc/self/smaps.
    private static func codeMappings(of executable: String) -> [Mapping] {
        guard let smaps = fopen("/proc/self/smaps", "r") else { return [] }
        defer { fclose(smaps) }
        var mappings: [Mapping] = []
        var current: Mapping?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, smaps) > 0, let line {
            let text = String(cString: line)
            if text.hasPrefix("Anonymous:") {
                let kilobytes = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 1
                current?.privatePages += kilobytes
                continue
            }
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            // A mapping's header: "start-end perms offset dev inode path".
            guard fields.count >= 5, fields[0].contains("-"), let first = fields[0].first, first.isHexDigit else {
                continue
            }
            if let finished = current { mappings.append(finished) }
            current = nil
            let path = fields.count >= 6 ? fields[5...].joined(separator: " ").trimmingNewline() : ""
            guard path == executable, fields[1].hasPrefix("r-x") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                end > start, let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            current = Mapping(start: address, length: Int(end - start))
        }
        if let finished = current { mappings.append(finished) }
        return mappings
    }
}

extension String {
    fileprivate func trimmingNewline() -> String {
        self.hasSuffix("\n") ? String(self.dropLast()) : self
    }
}
