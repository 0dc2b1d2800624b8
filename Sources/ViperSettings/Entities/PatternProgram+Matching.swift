extension PatternProgram {
    /// The most instructions a match may visit (over every position, lookaheads included): about a tenth of a
    /// second. Linear time is the length of the text times the size of the program, and a program of 10,000
    /// instructions that are all live at once (`(?:a?){1000}…`) over a 64 KiB value would take seconds, during
    /// which the serving thread answers no one.
    package static let stepLimit = 16_000_000

    /// Whether the whole of `text` matches, read as Unicode scalars: in time proportional to the length of the text
    /// times the size of the program, whatever the pattern; `nil` when deciding it would visit more than
    /// `stepLimit` instructions (``stepLimit`` unless told).
    ///
    /// A lookahead is decided at every position before the main program runs: its body, compiled backwards, runs
    /// once from the end of the text towards its start, and marks each position where a match of the body starts.
    package func matches(_ text: String, stepLimit: Int = PatternProgram.stepLimit) -> Bool? {
        var budget = stepLimit
        return self.matches(text, budget: &budget)
    }

    /// Whether the whole of `text` matches, as ``matches(_:stepLimit:)``, within what is left of `budget` (the steps
    /// of a whole value, over its items), from which it takes the steps spent; `nil` when they would exceed it. A
    /// decision that cost many steps is kept (a stored value is checked again at every read that shows it).
    package func matches(_ text: String, budget: inout Int) -> Bool? {
        if let known = self.decided(text) {
            if known == nil { budget = 0 }  // as deciding it again would find
            return known
        }
        let before = budget
        let result = self.deciding(text, budget: &budget)
        // A text too costly to decide with the whole budget is too costly whenever: kept too. With less (a list's
        // later item), it may not be.
        if before - budget >= Self.keptAbove, result != nil || before >= Self.stepLimit { self.keep(text, result) }
        return result
    }

    /// Runs the program over `text`, taking the instructions visited from `budget`; `nil` past it.
    private func deciding(_ text: String, budget: inout Int) -> Bool? {
        let stepLimit = budget
        let scalars = text.unicodeScalars.map(\.value)
        var tables: [[Bool]] = []
        var visits = 0
        for program in self.lookaheads {
            guard let table = Self.starts(of: program, in: scalars, tables: tables, visits: &visits, limit: stepLimit)
            else {
                budget = 0
                return nil
            }
            tables.append(table)
        }
        var current = PatternStateSet(size: self.main.count)
        var next = PatternStateSet(size: self.main.count)
        defer { budget = max(0, stepLimit - visits - current.visits - next.visits) }
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
            if visits + current.visits + next.visits > stepLimit { return nil }
        }
        return current.matched
    }

    /// For each position of `scalars` (and its end), whether the backward `program` of a lookahead's body matches
    /// some text starting there; `tables` holds the lookaheads the program itself uses. Adds the instructions it
    /// visits to `visits`; `nil` past `limit`.
    private static func starts(
        of program: [Instruction],
        in scalars: [UInt32],
        tables: [[Bool]],
        visits: inout Int,
        limit: Int
    ) -> [Bool]? {
        var table = Array(repeating: false, count: scalars.count + 1)
        var current = PatternStateSet(size: program.count)
        var next = PatternStateSet(size: program.count)
        var position = scalars.count
        defer { visits += current.visits + next.visits }
        while true {
            // A match of the body may end at any position: the program starts afresh at each.
            current.add(0, of: program, at: position, count: scalars.count, tables: tables)
            table[position] = current.matched
            if position == 0 { return table }
            if visits + current.visits + next.visits > limit { return nil }
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
