import Glibc
import ViperPOSIX

/// Puts rendered bytes in place the safe way: a file that already holds them, with the target's mode and owner, is
/// left alone; otherwise the check on a copy beside the destination (`.NAME.viper-apply.XXXXXX`; a check that changed
/// or replaced it fails, and what it left running in its process group is killed), then a fresh temporary file that
/// no check ever had, fsync, rename over the destination, fsync of the directory, the reload; a failed reload puts the
/// previous entry back as it was (or removes the new file when there was none) and reloads again. A symbolic link at
/// the destination is replaced, never followed; a FIFO, device or directory there is refused; a regular file over
/// 16 MiB is not read, but replaced, and a template that renders more fails its target. Every step is made in the destination's directory as it was opened at the start
/// (``DestinationDirectory``; under a root, reached without following a link below it), so that a directory swapped
/// for a symbolic link meanwhile cannot lead a write, a rename or a removal elsewhere.
public struct FileApplier: Sendable {
    public var commands: any CommandRunning
    /// Where a dry run writes the file its check reads (never beside the destination).
    public var scratchDirectory: String
    /// Whether a target under a root (`--root`) is reloaded: its reload command acts on the running system, not on
    /// the root, so by default it is not run (`--run-reloads` runs it, for a root that is the running system, or a
    /// test).
    public var reloadsUnderRoot: Bool

    public init(commands: any CommandRunning, scratchDirectory: String, reloadsUnderRoot: Bool = false) {
        self.commands = commands
        self.scratchDirectory = scratchDirectory
        self.reloadsUnderRoot = reloadsUnderRoot
    }

    /// Applies `rendered` to `target`'s destination; with `dryRun`, writes nothing outside the scratch directory and
    /// reloads nothing, but runs the check, also when the file would not change. A failure that can heal by itself
    /// (a write that failed, a reload that failed, a check that could not be started) is ``ApplyOutcome/retryable``.
    /// The destination is replaced only while `permit` is granted: once it is withdrawn (the target was removed),
    /// nothing is written, and the outcome is ``ApplyOutcome/interrupted``.
    public func apply(
        _ target: ApplyTarget,
        rendered: String,
        dryRun: Bool = false,
        permit: ApplyPermit = ApplyPermit()
    ) async -> ApplyOutcome {
        var target = target
        var skippedReload: String?
        if !target.root.isEmpty, !self.reloadsUnderRoot, let reload = target.reload {
            target.reload = nil
            skippedReload =
                "\(reload.joined(separator: " ")) was not run: with --root \(target.root) the files are an image's,"
                + " and a reload command acts on the running system (--run-reloads runs it)"
        }
        guard rendered.utf8.count <= DestinationFile.sizeLimit else {
            // Not retried: the same values render the same bytes; a change applies the target again.
            return ApplyOutcome(
                result: .failed,
                error: """
                    the template renders \(rendered.utf8.count) bytes, more than the \(DestinationFile.sizeLimit >> 20) \
                    MiB a destination may hold: nothing was written
                    """
            )
        }
        var outcome = await self.applyOnce(target, rendered: rendered, dryRun: dryRun, permit: permit)
        if outcome.result == .written { outcome.reloadSkipped = skippedReload }
        if !dryRun && !outcome.interrupted {
            outcome.retryable =
                outcome.result == .failed || outcome.result == .reloadFailed
                || (outcome.result == .checkFailed && outcome.check == nil)
        }
        return outcome
    }

    /// What `target`'s destination holds now, when it is a regular file that can be read; `nil` otherwise.
    public func existingBytes(of target: ApplyTarget) -> [UInt8]? {
        let directory = try? DestinationDirectory.open(
            containing: target.destination,
            root: target.root,
            creating: false
        )
        guard let directory = directory ?? nil else { return nil }
        return (try? DestinationFile.inspect(FileIO.name(of: target.destination), in: directory))?.bytes
    }

    private func applyOnce(
        _ target: ApplyTarget,
        rendered: String,
        dryRun: Bool,
        permit: ApplyPermit
    ) async -> ApplyOutcome {
        let bytes = Array(rendered.utf8)
        let name = FileIO.name(of: target.destination)
        // Every step below is made in this directory, opened once: not in one a link swapped in since leads to.
        var opened: DestinationDirectory?
        let existing: DestinationFile
        do throws(ApplyError) {
            opened = try DestinationDirectory.open(containing: target.destination, root: target.root, creating: false)
            existing =
                try opened.map { directory throws(ApplyError) in
                    try DestinationFile.inspect(name, in: directory)
                } ?? DestinationFile(kind: .missing)
        } catch {
            return ApplyOutcome(result: .failed, error: error.description)
        }
        // A kept previous entry means the applier stopped during a reload (SIGKILL, a crash): the file in place was
        // never reloaded, so it is not "unchanged", and the kept entry is what a failed reload puts back.
        let interrupted =
            !dryRun && target.reload != nil && opened?.status(of: FileIO.previousName(of: name)) != nil
        if existing.holds(bytes, for: target) && !interrupted {
            guard dryRun else { return ApplyOutcome(result: .unchanged) }
            // A dry run checks an unchanged file too: whether what is in place passes its check.
            return await self.dryRun(target, bytes: bytes, diff: "", result: .unchanged)
        }
        // A file over the size limit was not read: all of it is replaced.
        let diff = LineDiff.unified(
            old: existing.bytes.map { String(decoding: $0, as: UTF8.self) } ?? "",
            new: rendered,
            path: target.destination
        )
        // What else differs: the bytes may be the same.
        let attributes = existing.changes(to: target)
        if dryRun {
            var outcome = await self.dryRun(target, bytes: bytes, diff: diff)
            outcome.attributes = attributes
            return outcome
        }

        let directory: DestinationDirectory
        do throws(ApplyError) {
            if let opened {
                directory = opened
            } else if let made = try DestinationDirectory.open(
                containing: target.destination,
                root: target.root,
                creating: true
            ) {
                directory = made
            } else {
                throw .file(path: target.destination, operation: "write", reason: "its directory cannot be created")
            }
            FileIO.removeLeftovers(of: name, in: directory, keepingPrevious: interrupted)
        } catch {
            return ApplyOutcome(result: .failed, error: error.description, diff: diff)
        }
        var outcome = ApplyOutcome(result: .written, diff: diff)
        if target.check != nil {
            outcome = await self.check(target, bytes: bytes, in: directory, outcome: outcome)
            guard outcome.result == .written else { return outcome }
        }
        // The applier stops (SIGTERM): nothing is replaced from now on; the next start applies the target again.
        if Task.isCancelled { return Self.stopped(outcome, reason: "the applier is stopping") }
        if permit.isWithdrawn { return Self.stopped(outcome, reason: Self.withdrawn) }
        // A file no check ever had: nothing the check did, or left running, can reach what is renamed into place.
        // With a reload to undo, the entry in place is kept under a second name until the reload succeeds.
        var previous: String?
        do throws(ApplyError) {
            let temporary = try TemporaryFile.create(
                bytes,
                in: directory,
                beside: name,
                owner: target.owner,
                group: target.group,
                mode: target.mode
            )
            let replaced: Bool
            do throws(ApplyError) {
                // Under the permit: a target removed meanwhile has its file left as it is.
                replaced = try permit.whileGranted { () throws(ApplyError) in
                    if interrupted {
                        previous = FileIO.previousName(of: name)
                    } else if target.reload != nil, existing.kind != .missing {
                        previous = FileIO.previousName(of: name)
                        try directory.link(name, as: FileIO.previousName(of: name))
                    }
                    // Renamed while open, so locked: no other applier takes it for a leftover.
                    try directory.rename(temporary.name, over: name)
                }
            } catch {
                temporary.discard()
                if let previous { directory.discard(previous) }
                throw error
            }
            guard replaced else {
                temporary.discard()
                return Self.stopped(outcome, reason: Self.withdrawn)
            }
            try temporary.close()
        } catch {
            return ApplyOutcome(result: .failed, check: outcome.check, error: error.description, diff: diff)
        }
        outcome.attributes = attributes
        guard let reload = target.reload else { return outcome }
        return await self.reload(reload, of: name, in: directory, previous: previous, outcome: outcome)
    }

    /// Runs `reload` after `name` was replaced in `directory`; when it fails, puts the `previous` entry back (the same
    /// file, with its owner, mode and links, or the same symbolic link; with none, removes the new file), then
    /// reloads again so that the program runs with it.
    private func reload(
        _ reload: [String],
        of name: String,
        in directory: DestinationDirectory,
        previous: String?,
        outcome: ApplyOutcome
    ) async -> ApplyOutcome {
        var outcome = outcome
        let reloaded: CommandResult
        do throws(ApplyError) {
            reloaded = try await self.commands.run(reload)
        } catch .interrupted(let command) {
            // Stopped with the applier: the previous entry stays kept, so the next start reloads the file in place
            // (and puts that entry back if the reload fails), as after a SIGKILL during a reload.
            return Self.stopped(outcome, reason: ApplyError.interrupted(command: command).description)
        } catch {
            reloaded = CommandResult(status: 127, stderr: error.description)
        }
        outcome.reload = reloaded
        if reloaded.succeeded {
            if let previous { directory.discard(previous) }
            return outcome
        }
        outcome.result = .reloadFailed
        var message = "reload \(reload.joined(separator: " ")) \(reloaded.ending)"
        do throws(ApplyError) {
            if let previous {
                try directory.rename(previous, over: name)
                message += "; the previous file was put back"
            } else {
                try directory.remove(name)
                message += "; the new file was removed (there was none before)"
            }
        } catch {
            message += "; putting the previous file back failed: \(error)"
        }
        do throws(ApplyError) {
            let again = try await self.commands.run(reload)
            outcome.rollbackReload = again
            message += again.succeeded ? " and reloaded" : ", and reloading it failed too: it \(again.ending)"
        } catch {
            message += ", and reloading it failed too: \(error)"
        }
        outcome.error = message
        return outcome
    }

    /// Runs `check` on a copy of `bytes` beside the destination (`.NAME.viper-apply.XXXXXX`, with the target's owner
    /// and mode), then removes the copy: `outcome` with the check's result, `.written` when it passed on the
    /// rendered bytes. What the check left running in its process group is killed when it exits.
    private func check(
        _ target: ApplyTarget,
        bytes: [UInt8],
        in directory: DestinationDirectory,
        outcome: ApplyOutcome
    ) async -> ApplyOutcome {
        var outcome = outcome
        let copy: TemporaryFile
        do throws(ApplyError) {
            copy = try TemporaryFile.create(
                bytes,
                in: directory,
                beside: FileIO.name(of: target.destination),
                owner: target.owner,
                group: target.group,
                mode: target.mode
            )
        } catch {
            return ApplyOutcome(result: .failed, error: error.description, diff: outcome.diff)
        }
        defer { copy.discard() }
        let command = target.checkCommand(for: copy.path) ?? []
        do throws(ApplyError) {
            let result = try await self.commands.run(command, killingLeftovers: true)
            outcome.check = result
            guard result.succeeded else {
                outcome.result = .checkFailed
                outcome.error = "check \(command.joined(separator: " ")) \(result.ending)"
                return outcome
            }
            // Its verdict must be on the rendered bytes: not on a file it changed or replaced first.
            try copy.verifyUnchanged(bytes, check: command)
        } catch {
            switch error {
            case .interrupted: return Self.stopped(outcome, reason: error.description)
            case .checkChangedFile, .command: outcome.result = .checkFailed
            default: outcome.result = .failed
            }
            outcome.error = error.description
        }
        return outcome
    }

    /// Why an apply whose permit was withdrawn wrote nothing.
    private static let withdrawn = "the target was removed while it was applied: nothing was written"

    /// `outcome` cut short by the applier's stop: `failed`, ``ApplyOutcome/interrupted``, with `reason`.
    private static func stopped(_ outcome: ApplyOutcome, reason: String) -> ApplyOutcome {
        var outcome = outcome
        outcome.result = .failed
        outcome.error = reason
        outcome.interrupted = true
        return outcome
    }

    private func dryRun(
        _ target: ApplyTarget,
        bytes: [UInt8],
        diff: String,
        result: ApplyOutcome.Result = .wouldWrite
    ) async -> ApplyOutcome {
        var outcome = ApplyOutcome(result: result, diff: diff)
        guard target.check != nil else { return outcome }
        let copy: TemporaryFile
        do throws(ApplyError) {
            let scratch = self.scratchDirectory + "/" + target.name
            guard let directory = try DestinationDirectory.open(containing: scratch, creating: true) else {
                throw .file(path: self.scratchDirectory, operation: "create a file in", reason: "it does not exist")
            }
            // With the destination's owner, group and mode, as the apply's copy has: a check that drops privileges
            // or looks at permissions sees what it would see then.
            copy = try TemporaryFile.create(
                bytes,
                in: directory,
                beside: target.name,
                owner: target.owner,
                group: target.group,
                mode: target.mode
            )
        } catch {
            return ApplyOutcome(result: .failed, error: error.description, diff: diff)
        }
        defer { copy.discard() }
        do throws(ApplyError) {
            let check = target.checkCommand(for: copy.path) ?? []
            let result = try await self.commands.run(check, killingLeftovers: true)
            outcome.check = result
            if !result.succeeded {
                outcome.result = .checkFailed
                outcome.error = "check \(check.joined(separator: " ")) \(result.ending)"
            } else {
                // As the apply does: a verdict on a file the check changed is none.
                try copy.verifyUnchanged(bytes, check: check)
            }
        } catch {
            outcome.result = .checkFailed
            outcome.error = error.description
            if case .interrupted = error { outcome.interrupted = true }
        }
        return outcome
    }
}
