extension PatternProgram {
    /// Whether the whole of `text` matches, read as Unicode scalars: in time proportional to the length of the text
    /// times the size of the program, whatever the pattern.
    ///
    /// A lookahead is decided at every position before the main program runs: its body, compiled backwards, runs
    /// once from the end of the text towards its start, and marks each position where a match of the body starts.
    package func matches(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        var tables: [[Bool]] = []
        for program in self.lookaheads {
            tables.append(Self.starts(of: program, in: scalars, tables: tables))
        }
        var current = PatternStateSet(size: self.main.count)
        var next = PatternStateSet(size: self.main.count)
        current.add(0, of: self.main, at: 0, count: scalars.count, tables: tables)
        for (offset, scalar) in scalars.enumerated() {
            next.clear()
            for pc in current.states {
                if case .scalars(let set) = self.main[pc], set.contains(scalar) {
                    next.add(pc + 1, of: self.main, at: offset + 1, count: scalars.count, tables: tables)
                }
            }
            swap(&current, &next)
            if current.states.isEmpty { return false }
        }
        return current.matched
    }

    /// For each position of `scalars` (and its end), whether the backward `program` of a lookahead's body matches
    /// some text starting there; `tables` holds the lookaheads the program itself uses.
    private static func starts(of program: [Instruction], in scalars: [UInt32], tables: [[Bool]]) -> [Bool] {
        var table = Array(repeating: false, count: scalars.count + 1)
        var current = PatternStateSet(size: program.count)
        var next = PatternStateSet(size: program.count)
        var position = scalars.count
        while true {
            // A match of the body may end at any position: the program starts afresh at each.
            current.add(0, of: program, at: position, count: scalars.count, tables: tables)
            table[position] = current.matched
            if position == 0 { return table }
            let scalar = scalars[position - 1]
            next.clear()
            for pc in current.states {
                if case .scalars(let set) = program[pc], set.contains(scalar) {
                    next.add(pc + 1, of: program, at: position - 1, count: scalars.count, tables: tables)
                }
            }
            swap(&current, &next)
            position -= 1
        }
    }
}
