import ViperSettings

/// The checks that need storage: values read back, reopening and compaction.
extension RepositoryConformance {
    /// Every kind of value reads back equal, after reopening when the repository has storage.
    public func checkValuesRoundTrip() async throws {
        var repository = try await self.makeRepository()
        let values: [String: SettingValue] = [
            "kinds.bool": .bool(true), "kinds.false": .bool(false),
            "kinds.int": .int(-42), "kinds.min": .int(.min), "kinds.max": .int(.max),
            "kinds.double": .double(0.1), "kinds.whole": .double(2), "kinds.tiny": .double(.leastNonzeroMagnitude),
            "kinds.huge": .double(.greatestFiniteMagnitude), "kinds.negative": .double(-1.5),
            "kinds.string": .string("manual"), "kinds.empty": .string(""),
            "kinds.escapes": .string("quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7}"),
            "kinds.unicode": .string("Grüße, 東京 🚀"),
            "kinds.strings": .strings(["stable", "beta"]), "kinds.none": .strings([]),
        ]
        let expected = ModuleState(revision: 9, local: values)
        _ = try await repository.update(module: "kinds") { _ in LocalChange(set: values, revision: 9) }
        if let reopen = self.reopen { repository = try await reopen(repository) }
        let state = try await repository.state(of: "kinds")
        for (key, value) in values {
            try expect(
                state.local[key] == value,
                "\(key) reads back as \(String(describing: state.local[key])), expected \(value)"
            )
        }
        try expect(state == expected, "the state reads back as \(state), expected \(expected)")
    }

    /// With `reopen`: what was stored is there after reopening, and updates go on from it.
    public func checkStateSurvivesReopen() async throws {
        guard let reopen = self.reopen else { return }
        var repository = try await self.makeRepository()
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080), "proxy.mode": .string("manual")], revision: 1)
        }
        _ = try await repository.update(module: "network") { state in
            LocalChange(remove: ["proxy.mode"], revision: state.revision + 1)
        }
        _ = try await repository.update(module: "display") { _ in
            LocalChange(set: ["screen.scale": .double(1.25)], revision: 4)
        }
        _ = try await repository.update(module: "display") { _ in nil }
        let network = try await repository.state(of: "network")
        let display = try await repository.state(of: "display")
        repository = try await reopen(repository)
        try expect(try await repository.state(of: "network") == network, "network after reopening is not \(network)")
        try expect(try await repository.state(of: "display") == display, "display after reopening is not \(display)")
        try expect(
            try await repository.state(of: "updates") == .empty,
            "a module never updated is not empty after reopening"
        )
        let next = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.mode": .string("auto")], revision: state.revision + 1)
        }
        try expect(next.before == network, "the first decide after reopening saw \(next.before), expected \(network)")
        repository = try await reopen(repository)
        let final = try await repository.state(of: "network")
        try expect(final == next.after, "network after a second reopening is \(final), expected \(next.after)")
    }

    /// With `reopen`: after ``manyUpdates`` updates (enough to compact), a mix of sets and removals over two
    /// modules, everything is there after reopening.
    public func checkStateSurvivesCompaction() async throws {
        guard let reopen = self.reopen else { return }
        var repository = try await self.makeRepository()
        var expected: [String: ModuleState] = ["alpha": .empty, "beta": .empty]
        for step in 0..<self.manyUpdates {
            let module = step % 3 == 0 ? "beta" : "alpha"
            let key = "items.k\(step % 17)"
            let result = try await repository.update(module: module) { state in
                step % 5 == 4
                    ? LocalChange(remove: [key], revision: state.revision + 1)
                    : LocalChange(
                        set: [key: .int(Int64(step)), "items.last": .string("step \(step)")],
                        revision: state.revision + 1
                    )
            }
            expected[module] = result.after
        }
        try expect(
            expected["alpha"]!.revision > 0 && expected["beta"]!.revision > 0,
            "the updates did not reach both modules"
        )
        for (module, state) in expected {
            let read = try await repository.state(of: module)
            try expect(read == state, "\(module) before reopening is \(read), expected \(state)")
        }
        repository = try await reopen(repository)
        for (module, state) in expected {
            let read = try await repository.state(of: module)
            try expect(
                read == state,
                "\(module) after \(self.manyUpdates) updates and reopening is \(read), expected \(state)"
            )
        }
    }
}
