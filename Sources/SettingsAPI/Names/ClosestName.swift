/// The name a mistyped one most likely meant, by edit distance: for the hints that follow "no such module" or "no
/// such key" (`did you mean 'network.proxy.port'?`), in the daemon's replies and in settingsctl's messages alike.
public enum ClosestName {
    /// The candidate closest to `name` (edit distance, letter case ignored), when it is close enough to be a typo:
    /// at most a third of the name's length, and at most 3 edits; none when two are as close.
    /// Else the one candidate `name` begins, when only one does (`netw` for `network`: names are shortened so).
    public static func closest(to name: String, in candidates: [String]) -> String? {
        if let typo = Self.typo(of: name, in: candidates) { return typo }
        let target = name.lowercased()
        guard target.count >= 2 else { return nil }
        let begun = candidates.filter { $0 != name && $0.lowercased().hasPrefix(target) }
        return begun.count == 1 ? begun.first : nil
    }

    /// The candidate within a typo's edits of `name`, as ``closest(to:in:)`` finds it first.
    private static func typo(of name: String, in candidates: [String]) -> String? {
        let target = name.lowercased()
        guard !target.isEmpty else { return nil }
        let limit = min(3, max(1, target.count / 3))
        var best: (distance: Int, name: String, tied: Bool)?
        for candidate in candidates.sorted() where candidate != name {
            let lowered = candidate.lowercased()
            // No length is further apart than its difference: most candidates need no table.
            guard abs(lowered.count - target.count) <= limit else { continue }
            let distance = Self.editDistance(target, lowered)
            guard distance <= limit else { continue }
            if distance < (best?.distance ?? .max) {
                best = (distance, candidate, false)
            } else if distance == best?.distance, lowered != best?.name.lowercased() {
                best?.tied = true
            }
        }
        // Two as close: a guess between them would be wrong half the time.
        return best.flatMap { $0.tied ? nil : $0.name }
    }

    /// The edit distance between `a` and `b`: insertions, deletions, substitutions, and swaps of two neighbours
    /// (`potr` is one edit from `port`), each one edit.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var beforePrevious: [Int] = []
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                var distance = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1))
                if i > 0, j > 0, a[i] == b[j - 1], a[i - 1] == b[j] {
                    distance = min(distance, beforePrevious[j - 1] + 1)
                }
                current.append(distance)
            }
            (beforePrevious, previous) = (previous, current)
        }
        return previous[b.count]
    }
}
