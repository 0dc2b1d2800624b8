/// The set of states a ``PatternProgram`` is in at one position of the text: the instructions that consume a scalar
/// or match, each held once, whatever the number of ways it was reached (which is what keeps matching linear).
struct PatternStateSet {
    typealias Instruction = PatternProgram.Instruction

    /// The program counters of the states, in the order they were reached.
    private(set) var states: [Int] = []
    /// Whether the set holds the program's `match`.
    private(set) var matched = false
    /// The generation in which each instruction was last visited: the set holds what was visited in this one.
    private var marks: [Int]
    private var generation = 1
    private var stack: [Int] = []
    /// The instructions visited so far, at every position: the matcher's work, which ``PatternProgram/stepLimit``
    /// bounds.
    private(set) var visits = 0

    /// An empty set for a program of `size` instructions.
    init(size: Int) { self.marks = Array(repeating: 0, count: size) }

    /// Empties the set, for the next position.
    mutating func clear() {
        self.states.removeAll(keepingCapacity: true)
        self.matched = false
        self.generation += 1
    }

    /// Adds the state at `pc` and all those it reaches without consuming a scalar, at `position` of a text of
    /// `count` scalars; `tables[k][position]` tells whether lookahead `k` matches there.
    mutating func add(_ pc: Int, of program: [Instruction], at position: Int, count: Int, tables: [[Bool]]) {
        self.stack.append(pc)
        while let pc = self.stack.popLast() {
            guard self.marks[pc] != self.generation else { continue }
            self.marks[pc] = self.generation
            self.visits += 1
            switch program[pc] {
            case .scalars:
                self.states.append(pc)
            case .match:
                self.states.append(pc)
                self.matched = true
            case .split(let first, let second):
                self.stack.append(second)
                self.stack.append(first)
            case .jump(let target):
                self.stack.append(target)
            case .assertStart:
                if position == 0 { self.stack.append(pc + 1) }
            case .assertEnd:
                if position == count { self.stack.append(pc + 1) }
            case .lookahead(let index, let negated):
                if tables[index][position] != negated { self.stack.append(pc + 1) }
            }
        }
    }
}
