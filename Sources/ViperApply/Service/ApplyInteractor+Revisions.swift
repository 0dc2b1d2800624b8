/// The revisions a target is rendered with (`revision.MODULE`).
extension ApplyInteractor {
    /// For each module `target` reads: the revision of the latest change among the keys it reads (not the module's
    /// revision, which moves with keys the target does not read and would rewrite its file for nothing). Where some
    /// of those revisions are guesses (``guessed``), the revision its destination was rendered with, when the
    /// destination holds what the values render now and that revision is possible (no older than a known change of
    /// a key it reads, no newer than the guess): the file is then left as it is, and its service is not reloaded.
    func renderRevisions(of target: ApplyTarget) -> [String: Int64] {
        var known: [String: Int64] = [:]
        var guesses: [String: Int64] = [:]
        for (key, revision) in self.state.revisions where target.reads(key: key) {
            let module = ApplyTarget.module(of: key)
            if self.guessed.contains(key) {
                guesses[module] = max(guesses[module] ?? 0, revision)
            } else {
                known[module] = max(known[module] ?? 0, revision)
            }
        }
        var revisions = known.merging(guesses, uniquingKeysWith: max)
        guard !guesses.isEmpty, let existing = self.applier.existingBytes(of: target),
            let shown = self.renderer.revisions(in: existing, target: target, values: self.state.values)
        else { return revisions }
        for (module, guess) in guesses {
            guard let revision = shown[module], revision >= known[module] ?? 0, revision <= guess else { continue }
            revisions[module] = revision
        }
        return revisions
    }

    /// After `applied` were rendered: each guessed key they read takes the lowest revision one of them was rendered
    /// with (a file found to hold the current values tells when they last changed), and is no longer a guess, so that
    /// the state saved renders the same files after a restart.
    func settleGuesses(_ applied: [(target: ApplyTarget, revisions: [String: Int64])]) {
        guard !self.guessed.isEmpty else { return }
        for key in self.guessed {
            let module = ApplyTarget.module(of: key)
            let readers = applied.filter { $0.target.reads(key: key) }
            guard !readers.isEmpty else { continue }
            for reader in readers {
                if let revision = reader.revisions[module], revision < self.state.revisions[key] ?? .max {
                    self.state.revisions[key] = revision
                }
            }
            self.guessed.remove(key)
        }
    }
}
