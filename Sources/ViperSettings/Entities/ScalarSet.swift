/// A set of Unicode scalars, as sorted, disjoint ranges of scalar values: what one step of a pattern matches (a
/// literal, `.`, a class such as `[a-z]` or `\d`).
struct ScalarSet: Sendable, Hashable {
    /// Sorted, disjoint and not adjacent.
    private(set) var ranges: [ClosedRange<UInt32>]

    /// The set of the scalars in `ranges`, in any order, overlapping or not.
    init(_ ranges: [ClosedRange<UInt32>]) {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    /// Every Unicode scalar (what `.` matches).
    static let any = ScalarSet([0...0x10FFFF])
    /// `\d`: the ASCII digits only, not the digits of other scripts.
    static let digit = ScalarSet([0x30...0x39])
    /// `\w`: ASCII letters, digits and `_`.
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: ASCII white space: space, tab, line feed, vertical tab, form feed and carriage return.
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])

    /// One scalar.
    static func scalar(_ value: UInt32) -> ScalarSet { ScalarSet([value...value]) }

    /// The one scalar value of a set of one scalar (a literal), `nil` for a larger or an empty set.
    var single: UInt32? {
        guard self.ranges.count == 1, self.ranges[0].lowerBound == self.ranges[0].upperBound else { return nil }
        return self.ranges[0].lowerBound
    }

    /// The scalars not in this set.
    var inverted: ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in self.ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { result.append(next...0x10FFFF) }
        return ScalarSet(result)
    }

    /// Whether the scalar of value `value` is in the set (a binary search of the ranges).
    func contains(_ value: UInt32) -> Bool {
        var low = 0
        var high = self.ranges.count
        while low < high {
            let middle = (low + high) / 2
            let range = self.ranges[middle]
            if value < range.lowerBound {
                high = middle
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
