import ViperSettings

/// Writes under the state directory's lock, when it could not be taken at start.
extension JSONFileRepository {
    /// Takes the state directory's lock before a write, when it was not held at start; throws why it cannot be (the
    /// directory cannot be opened, or another daemon holds it). Once taken, every module loaded before is read
    /// again from its files: another daemon may have written them while this one could not hold the lock, and a
    /// state read then must not be written over what that daemon acknowledged (its revisions would go back).
    /// Their watchers start over from what the files hold. One caller takes it; the others wait for it.
    func lockedForWriting() async throws(StorageError) {
        while !self.holdsLockedState {
            if self.lockWaiters != nil {
                await withCheckedContinuation { self.lockWaiters?.append($0) }
                continue
            }
            guard let lock = self.stateLock else {
                self.holdsLockedState = true
                return
            }
            self.lockWaiters = []
            let failure: StorageError?
            do {
                failure = try await self.threadPool.runIgnoringCancellation { lock.heldOrTaken() }
            } catch {
                failure = StorageError("cannot lock the state directory: the storage thread pool is not running")
            }
            if failure == nil {
                await self.reloadAfterLocking()
                self.holdsLockedState = true
                // What the daemon does with state it did not write (remote values while its sync is off), first.
                await self.readAgain?()
            }
            for waiter in self.lockWaiters ?? [] { waiter.resume() }
            self.lockWaiters = nil
            if let failure { throw failure }
        }
    }

    /// Calls `handler` once the state directory's lock was taken late and every module read again, before the write
    /// that took it goes on: the files may hold what another daemon wrote (remote values of its own source).
    public func whenReadAgain(_ handler: @escaping @Sendable () async -> Void) {
        self.readAgain = handler
    }

    /// Reads every loaded module again from its files, now that the lock is held.
    private func reloadAfterLocking() async {
        // A load under way read the files before the lock was held: it ends first, and its module is read again.
        while let module = self.loadingModules.first {
            await self.loaded(module)
        }
        let modules = Array(self.entries.keys)
        self.entries.removeAll()
        self.closeJournals(beyond: 0, keeping: [])
        guard !modules.isEmpty else { return }
        await self.preload(modules: modules)
        self.logger.notice(
            "The state directory \(self.directory) is locked by this daemon now: its modules are read again from their files (another daemon may have written them meanwhile)",
            metadata: ["modules": "\(modules.sorted().joined(separator: ","))"]
        )
        for module in modules.sorted() { self.feed?.reset(module: module, cause: .stateReloaded) }
    }
}
