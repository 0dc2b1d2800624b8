/// What one render of a template may print, counted as it goes, so that a render that would print far more than a
/// destination may hold stops early instead of running for minutes and taking gigabytes: a section over a list
/// nested in a section over the same list prints the list's square (6,000 items: 36 million passes, 173 MB).
///
/// Each pass over a section is charged the size of the template's largest section (what one pass can print of the
/// template's own text, at most), and each value printed its bytes; once the charges pass ``limit``, lists yield no
/// more items and values print nothing, and the render is refused. A render the budget lets through prints about
/// ``limit`` bytes at most (a number or a boolean prints uncharged, a few bytes for the tag that names it).
/// Confined to one render, on one thread.
final class RenderBudget: @unchecked Sendable {
    /// The most a render may be charged, in bytes: four times the 16 MiB a destination may hold, so that a section
    /// of 2 KiB may still pass over a list of 30,000 items (a `strings` value of 64 KiB).
    static let limit = 64 << 20

    /// The bytes charged for one pass over a section.
    let passCharge: Int
    /// The bytes charged so far.
    private(set) var charged = 0
    /// The passes over sections so far.
    private(set) var passes = 0
    /// Whether the charges passed ``limit``.
    var exceeded: Bool { self.charged > Self.limit }

    /// A budget for a template whose largest section is `sectionSize` bytes.
    init(sectionSize: Int) {
        self.passCharge = max(sectionSize, 1)
    }

    /// Charges one pass over a section; whether it may be rendered.
    func pass() -> Bool {
        self.passes += 1
        self.charged += self.passCharge
        return !self.exceeded
    }

    /// Charges `text` printed; the text to print: nothing once the budget is spent.
    func print(_ text: String) -> String {
        self.charged += text.utf8.count
        return self.exceeded ? "" : text
    }
}
