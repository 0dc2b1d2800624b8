public import SettingsAPI

/// Presents `Dump` and `Load`, which span modules: each module's Presenter dumps or loads its own values; this one
/// puts them together. A load checks every module it names before it writes any; then it writes each module on its
/// own, one durable write per module, so a failure found only by writing (a full disk) on one module leaves the
/// modules written before it loaded, and says so.
public struct TransferPresenter: Sendable {
    private let presenters: [String: any SettingsPresenterProtocol]

    /// Creates the Presenter over the modules served, by name.
    public init(presenters: [String: any SettingsPresenterProtocol]) {
        self.presenters = presenters
    }

    /// Shows the dump of `modules` (every module when empty) on `view`; an unknown module is `NoSuchModule`.
    ///
    /// A module named more than once is dumped once: the reply holds each module once anyway, and building the same
    /// dump again for every repeat would let one small call keep the daemon busy for every other client.
    public func dump(modules: [String], effective: Bool, on view: any SettingsViewProtocol) async {
        var dumps: [String: ModuleDumpViewModel] = [:]
        for name in modules.isEmpty ? self.presenters.keys.sorted() : modules where dumps[name] == nil {
            guard let presenter = self.presenters[name] else {
                await view.display(failure: .noSuchModule(module: name))
                return
            }
            do {
                dumps[name] = try await presenter.dump(effective: effective)
            } catch {
                await view.display(failure: error)
                return
            }
        }
        await view.display(.dump(DumpViewModel(modules: dumps)))
    }

    /// Loads `values` (by module) on `view`; `ifRevision` names modules of `values`.
    ///
    /// Every module is checked first, with the caller's rights: any unknown module or key, invalid value, locked key
    /// or module the caller may not write refuses the whole load, `LoadRefused` listing each (with `dryRun`, they are
    /// listed instead, and the caller's rights are not checked); a module not at its `ifRevision` is
    /// `RevisionMismatch`, and one whose storage already refuses writes (files that cannot be used) is
    /// `StorageFailure`, both before anything is written. Then each module is stored in one durable write of its
    /// own: a write that fails leaves the modules before it loaded, which the error names.
    public func load(
        _ values: [String: [String: JSONValue]],
        replace: Bool,
        ifRevision: [String: Int64],
        dryRun: Bool,
        caller: Caller,
        on view: any SettingsViewProtocol
    ) async {
        var results: [ModuleLoadViewModel] = []
        var checked: [(name: String, presenter: any SettingsPresenterProtocol)] = []
        var problems: [LoadProblemViewModel] = []
        for name in values.keys.sorted() {
            guard let presenter = self.presenters[name] else {
                let meant = ClosestName.closest(to: name, in: Array(self.presenters.keys))
                problems.append(SettingsFormatter.problem(.noSuchModule(module: name, meant: meant)))
                continue
            }
            let request = LoadRequest(
                values: values[name] ?? [:],
                replace: replace,
                ifRevision: ifRevision[name],
                mode: dryRun ? .preview : .verify
            )
            do {
                let (result, found) = try await presenter.load(request, caller: caller)
                results.append(result)
                checked.append((name, presenter))
                // By key: a module the caller may not write (its key the module's name) comes first.
                problems += found.sorted { $0.key < $1.key }
            } catch {
                await view.display(failure: error)
                return
            }
        }
        if dryRun || !problems.isEmpty {
            if !dryRun {
                await view.display(failure: .loadRefused(problems: problems))
                return
            }
            await view.display(.load(LoadResultViewModel(modules: results, problems: problems, applied: false)))
            return
        }
        var applied: [ModuleLoadViewModel] = []
        for (name, presenter) in checked {
            let request = LoadRequest(
                values: values[name] ?? [:],
                replace: replace,
                ifRevision: ifRevision[name],
                mode: .apply
            )
            do {
                applied.append(try await presenter.load(request, caller: caller).module)
            } catch {
                // Modules are written one by one: say which ones were, so that a partial load is not mistaken
                // for none.
                await view.display(failure: Self.after(applied, error))
                return
            }
        }
        await view.display(.load(LoadResultViewModel(modules: applied, problems: [], applied: true)))
    }

    /// `error`, its reason saying which modules were loaded before it (when some were), with what changed in them
    /// (the first ``changesShown``) or that nothing did.
    package static func after(
        _ applied: [ModuleLoadViewModel],
        _ error: SettingsErrorViewModel
    ) -> SettingsErrorViewModel {
        guard !applied.isEmpty else { return error }
        var shown = 0
        let loaded = applied.map { module -> String in
            guard module.changed else { return "\(module.module) (no change)" }
            guard !module.changes.isEmpty else { return "\(module.module) (revision \(module.revision))" }
            let listed = module.changes.prefix(max(0, Self.changesShown - shown))
            shown += listed.count
            var words = listed.map {
                "\($0.key) \(SettingsFormatter.cut($0.oldDisplay)) -> \(SettingsFormatter.cut($0.display))"
            }
            if module.changes.count > listed.count { words.append("\(module.changes.count - listed.count) more") }
            return "\(module.module) (revision \(module.revision): \(words.joined(separator: ", ")))"
        }
        let note = "; the modules before it in the file were loaded: \(loaded.joined(separator: ", "))"
        switch error {
        case .storageFailure(let module, let reason): return .storageFailure(module: module, reason: reason + note)
        case .permissionDenied(let module, let uid, let reason):
            return .permissionDenied(module: module, uid: uid, reason: reason + note)
        case .revisionMismatch, .noSuchModule, .noSuchKey, .invalidValue, .keyLocked, .syncUnavailable,
            .syncInterrupted, .loadRefused:
            return error
        }
    }

    /// The most changes a partial load's failure lists, over every module loaded.
    static let changesShown = 20
}
