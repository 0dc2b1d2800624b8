/// Compiles a ``PatternNode`` tree into the instructions of a ``PatternProgram``, refusing a program larger than
/// ``PatternProgram/maxInstructions``.
struct PatternCompiler {
    typealias Instruction = PatternProgram.Instruction

    private var total = 0
    private var lookaheads: [[Instruction]] = []
    /// The index in `lookaheads` of each lookahead node compiled, by its id (a repeated one is compiled once).
    private var lookaheadIndex: [Int: Int] = [:]

    /// The program of `node`, read forwards, and the backward programs of its lookaheads.
    static func compile(_ node: PatternNode) throws(PatternError) -> ([Instruction], [[Instruction]]) {
        var compiler = PatternCompiler()
        let main = try compiler.program(node, reversed: false)
        return (main, compiler.lookaheads)
    }

    private mutating func program(_ node: PatternNode, reversed: Bool) throws(PatternError) -> [Instruction] {
        var code: [Instruction] = []
        try self.emit(node, reversed: reversed, into: &code)
        try self.append(.match, to: &code)
        return code
    }

    private mutating func append(_ instruction: Instruction, to code: inout [Instruction]) throws(PatternError) {
        self.total += 1
        if self.total > PatternProgram.maxInstructions {
            throw PatternError(
                "the pattern is too large: it compiles to more than \(PatternProgram.maxInstructions) instructions"
                    + " (a {n,m} quantifier copies what it repeats m times)"
            )
        }
        code.append(instruction)
    }

    /// Emits `node`; `reversed`, for a lookahead's body, reads sequences backwards (the matcher runs it from the
    /// end of the value towards its start).
    private mutating func emit(
        _ node: PatternNode,
        reversed: Bool,
        into code: inout [Instruction]
    ) throws(PatternError) {
        switch node {
        case .empty:
            break
        case .scalars(let set):
            try self.append(.scalars(set), to: &code)
        case .sequence(let nodes):
            for node in reversed ? nodes.reversed() : nodes { try self.emit(node, reversed: reversed, into: &code) }
        case .alternatives(let branches):
            var jumps: [Int] = []
            for branch in branches.dropLast() {
                let split = code.count
                try self.append(.split(0, 0), to: &code)
                try self.emit(branch, reversed: reversed, into: &code)
                jumps.append(code.count)
                try self.append(.jump(0), to: &code)
                code[split] = .split(split + 1, code.count)
            }
            if let last = branches.last { try self.emit(last, reversed: reversed, into: &code) }
            for jump in jumps { code[jump] = .jump(code.count) }
        case .repeated(let body, let min, let max):
            for _ in 0..<min { try self.emit(body, reversed: reversed, into: &code) }
            if let max {
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(code.count)
                    try self.append(.split(0, 0), to: &code)
                    try self.emit(body, reversed: reversed, into: &code)
                }
                for split in splits { code[split] = .split(split + 1, code.count) }
            } else {
                let loop = code.count
                try self.append(.split(0, 0), to: &code)
                try self.emit(body, reversed: reversed, into: &code)
                try self.append(.jump(loop), to: &code)
                code[loop] = .split(loop + 1, code.count)
            }
        case .start:
            try self.append(.assertStart, to: &code)
        case .end:
            try self.append(.assertEnd, to: &code)
        case .lookahead(let body, let negated, let id):
            let index: Int
            if let known = self.lookaheadIndex[id] {
                index = known
            } else {
                let program = try self.program(body, reversed: true)
                index = self.lookaheads.count
                self.lookaheads.append(program)
                self.lookaheadIndex[id] = index
            }
            try self.append(.lookahead(index, negated: negated), to: &code)
        }
    }
}
