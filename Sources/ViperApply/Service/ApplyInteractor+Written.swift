import Logging
import SettingsAPI

/// The files the applier wrote that no target writes any more: their target was removed (or refused), or given
/// another destination. They are not removed (the administrator may want them), but reported: logged at each load of
/// the targets, and among the status's warnings, until they are removed or a target writes them again.
extension ApplyInteractor {
    /// A file the applier wrote that no loaded target names, still there.
    struct LeftBehind: Equatable {
        /// Its path (the root prefixed).
        var destination: String
        /// The target that last wrote it.
        var target: String
        /// What became of that target: `was removed (…)`, `now writes /etc/y`, `is refused (…)`.
        var fate: String

        /// For the status: the file is named beside it.
        var reason: String {
            "the applier wrote it for target \(self.target), which \(self.fate): it stays as it is and is no longer"
                + " updated; remove it if its settings should no longer apply"
        }

        /// For the log.
        var message: String {
            "target \(self.target) \(self.fate): \(self.destination), which the applier wrote for it, stays as it is"
                + " and is no longer updated; remove it if its settings should no longer apply"
        }
    }

    /// Whether a file is at a path.
    enum Presence {
        case present, gone, unknown
    }

    /// Records that `target`'s destination holds what it renders (after it was written, or found up to date).
    func recordWritten(_ target: ApplyTarget, _ outcome: ApplyOutcome) {
        guard outcome.result == .written || outcome.result == .unchanged else { return }
        self.state.written[target.destination] = WrittenFile(target: target.name, root: target.root)
    }

    /// The files the applier wrote that no loaded target names (also spelt otherwise, or through a directory's
    /// symbolic link) and that are still there, by path.
    func leftBehind() -> [LeftBehind] {
        self.unclaimedWritten().compactMap { destination, file in
            guard Self.presence(of: destination, root: file.root) == .present else { return nil }
            return LeftBehind(destination: destination, target: file.target, fate: self.fate(of: file.target))
        }
    }

    /// Forgets the files the applier wrote that no loaded target names and that are gone (the administrator removed
    /// them): they are no longer reported.
    func forgetRemovedFiles() {
        for (destination, file) in self.unclaimedWritten()
        where Self.presence(of: destination, root: file.root) == .gone {
            self.state.written[destination] = nil
        }
    }

    /// Logs each file the applier wrote that no target writes any more (at each load of the targets).
    func logLeftBehind() {
        for file in self.leftBehind() {
            self.logger.warning(
                "\(file.message)",
                metadata: ["target": "\(file.target)", "destination": "\(file.destination)"]
            )
        }
    }

    /// The left-behind files as the status's warnings: the file and why.
    var leftBehindViewModels: [TargetProblemViewModel] {
        self.leftBehind().map { TargetProblemViewModel(file: $0.destination, reason: $0.reason, writtenFor: $0.target) }
    }

    /// The files written that no loaded target names, by path.
    private func unclaimedWritten() -> [(destination: String, file: WrittenFile)] {
        // Each target's own destination first, as recorded: most often every file is one, and no path is resolved
        // (this runs after every apply).
        let named = Set(self.targets.map(\.destination))
        let others = self.state.written.filter { !named.contains($0.key) }
        guard !others.isEmpty else { return [] }
        let claimed = Set(self.targets.map { ApplyTargetLoader.canonical($0.destination) })
        return others.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .filter { !claimed.contains(ApplyTargetLoader.canonical($0.key)) }
            .map { ($0.key, $0.value) }
    }

    /// What became of the target named `name`, which no longer writes a file it wrote.
    private func fate(of name: String) -> String {
        if let target = self.targets.first(where: { $0.name == name }) {
            return "now writes \(target.destination)"
        }
        let refused = self.problems.contains { problem in
            if case .badTarget(let file, _) = problem { return FileIO.name(of: file) == name + ".json" }
            return false
        }
        return refused
            ? "is refused (see the refused target files)"
            : "was removed (or renamed)"
    }

    /// Whether there is a file at `path` (a symbolic link itself counts), not following a symbolic link below `root`;
    /// unknown when its directory cannot be opened (a link below the root, no permission).
    static func presence(of path: String, root: String) -> Presence {
        do throws(ApplyError) {
            guard let directory = try DestinationDirectory.open(containing: path, root: root, creating: false) else {
                return .gone
            }
            return directory.status(of: FileIO.name(of: path)) == nil ? .gone : .present
        } catch {
            return .unknown
        }
    }
}
