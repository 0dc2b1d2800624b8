public import SettingsAPI

/// The centre of the Settings module: turns View events into Interactor calls, and results into ViewModels with
/// display strings ready.
public struct SettingsPresenter: SettingsPresenterProtocol {
    private let interactor: any SettingsInteractorProtocol
    private let dataManager: any SettingsDataManagerProtocol
    private let remoteRevision: @Sendable () -> String?
    private let remoteRejections: @Sendable () -> [String]
    /// The ViewModels of the items replies about one key show, their schema's members filled in once.
    private let items = ItemViewModelTemplates()

    /// Creates the Presenter of one module; `remoteRevision` tells `explain` which remote revision is in force, and
    /// `remoteRejections` which remote values the schemas rejected (`module.section.item: reason`).
    public init(
        interactor: any SettingsInteractorProtocol,
        dataManager: any SettingsDataManagerProtocol,
        remoteRevision: @escaping @Sendable () -> String? = { nil },
        remoteRejections: @escaping @Sendable () -> [String] = { [] }
    ) {
        self.interactor = interactor
        self.dataManager = dataManager
        self.remoteRevision = remoteRevision
        self.remoteRejections = remoteRejections
    }

    public var moduleName: String { self.interactor.schema.name }

    public func handle(_ event: SettingsViewEvent, caller: Caller, view: any SettingsViewProtocol) async {
        do {
            await view.display(try await self.viewModel(for: event, caller: caller))
        } catch {
            await view.display(failure: SettingsFormatter.error(error))
        }
    }

    public func summary() async -> ModuleSummaryViewModel {
        let schema = self.interactor.schema
        let resolved = try? await self.interactor.resolveAll()
        return ModuleSummaryViewModel(
            module: schema.name,
            title: schema.title,
            description: schema.description,
            keys: schema.itemCount,
            modified: resolved?.settings.filter(\.isModified).count ?? 0,
            revision: resolved?.revision ?? 0
        )
    }

    public func dump(effective: Bool) async throws(SettingsErrorViewModel) -> ModuleDumpViewModel {
        let dump: ModuleDump
        do { dump = try await self.interactor.dump() } catch { throw SettingsFormatter.error(error) }
        var values: [String: JSONValue] = [:]
        for (path, value) in dump.local { values[path] = value.json }
        var resolved: [String: EffectiveValueViewModel]?
        if effective {
            resolved = Dictionary(
                dump.settings.map { ($0.key.path, EffectiveValueViewModel(value: $0.value.json, layer: $0.winner)) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        return ModuleDumpViewModel(revision: dump.revision, values: values, effective: resolved)
    }

    public func load(
        _ request: LoadRequest,
        caller: Caller
    ) async throws(SettingsErrorViewModel) -> (module: ModuleLoadViewModel, problems: [LoadProblemViewModel]) {
        let outcome: LoadOutcome
        do { outcome = try await self.interactor.load(request, caller: caller) } catch {
            throw SettingsFormatter.error(error)
        }
        let changes = outcome.changes.map { change in
            LoadChangeViewModel(
                key: change.after.key.description,
                old: change.before.value.json,
                oldDisplay: SettingsFormatter.display(change.before.value),
                oldLayer: change.before.winner,
                value: change.after.value.json,
                display: SettingsFormatter.display(change.after.value),
                layer: change.after.winner
            )
        }
        return (
            ModuleLoadViewModel(
                module: outcome.module,
                revision: outcome.revision,
                changed: !changes.isEmpty,
                changes: changes
            ),
            outcome.problems.map(SettingsFormatter.problem)
        )
    }

    /// The ViewModel of `event`. Each kind of call has async functions of its own, and builds its ViewModel in a
    /// synchronous one: an async function's frame holds every local of every branch for as long as its task lives
    /// (a connection's, whatever call comes next).
    private func viewModel(
        for event: SettingsViewEvent,
        caller: Caller
    ) async throws(SettingsFailure)
        -> SettingsViewModel
    {
        switch event {
        case .showModule: try await self.showModule()
        case .get(let path): try await self.get(path)
        case .set(let path, let input): try await self.set(path, input: input, caller: caller)
        case .reset(let path): try await self.reset(path, caller: caller)
        case .explain(let path): try await self.explain(path)
        }
    }

    @inline(never)
    private func showModule() async throws(SettingsFailure) -> SettingsViewModel {
        let (settings, revision) = try await self.interactor.resolveAll()
        return self.module(settings, revision: revision)
    }

    private func module(_ settings: [ResolvedSetting], revision: Int64) -> SettingsViewModel {
        let schema = self.interactor.schema
        let sections = self.dataManager.sections(of: schema, settings: settings).map { section in
            SectionViewModel(id: section.id, title: section.title, items: section.settings.map(Self.item))
        }
        return .module(
            ModuleViewModel(
                module: schema.name,
                title: schema.title,
                description: schema.description,
                revision: revision,
                sections: sections
            )
        )
    }

    @inline(never)
    private func get(_ path: String) async throws(SettingsFailure) -> SettingsViewModel {
        let (setting, revision) = try await self.interactor.resolve(path: path)
        return .value(self.value(setting, revision: revision))
    }

    @inline(never)
    private func set(
        _ path: String,
        input: SettingInput,
        caller: Caller
    ) async throws(SettingsFailure)
        -> SettingsViewModel
    {
        self.setResult(try await self.interactor.set(path: path, input: input, caller: caller))
    }

    private func setResult(_ outcome: SetOutcome) -> SettingsViewModel {
        .set(
            SetResultViewModel(
                item: self.items.item(outcome.after),
                previous: self.items.item(outcome.before),
                changed: outcome.changed,
                revision: outcome.revision
            )
        )
    }

    @inline(never)
    private func reset(_ path: String?, caller: Caller) async throws(SettingsFailure) -> SettingsViewModel {
        Self.resetResult(try await self.interactor.reset(path: path, caller: caller))
    }

    private static func resetResult(_ outcome: ResetOutcome) -> SettingsViewModel {
        .reset(
            ResetResultViewModel(
                items: outcome.after.map(Self.item),
                changed: outcome.changed,
                revision: outcome.revision
            )
        )
    }

    @inline(never)
    private func explain(_ path: String) async throws(SettingsFailure) -> SettingsViewModel {
        let (setting, revision) = try await self.interactor.resolve(path: path)
        return self.explanation(setting, revision: revision)
    }

    private func explanation(_ setting: ResolvedSetting, revision: Int64) -> SettingsViewModel {
        let layers = Layer.allCases.map { layer in
            let value = setting.layers[layer]
            return LayerValueViewModel(
                layer: layer,
                present: value != nil,
                value: value?.json,
                display: value.map(SettingsFormatter.display),
                source: SettingsFormatter.source(of: layer, module: setting.key.module, present: value != nil)
            )
        }
        return .explain(
            ExplainViewModel(
                item: self.items.item(setting),
                layers: layers,
                winner: setting.winner,
                revision: revision,
                remoteRevision: self.remoteRevision(),
                rejected: Self.rejections(of: setting.key.description, in: self.remoteRejections()),
                ignored: setting.ignored.isEmpty
                    ? nil
                    : setting.ignored.map {
                        // As JSON, as a problem with a value repeats it: `local "a b"`, not `local a b`.
                        "\($0.layer.rawValue) \(SettingsFormatter.cut($0.value.json.serialized())): \($0.reason)"
                    }
            )
        )
    }

    public func valueNow(path: String) -> ValueViewModel? {
        self.interactor.resolveNow(path: path).map { self.value($0.setting, revision: $0.revision) }
    }

    /// The ViewModel of a `get`.
    private func value(_ setting: ResolvedSetting, revision: Int64) -> ValueViewModel {
        ValueViewModel(item: self.items.item(setting), revision: revision)
    }

    /// The ViewModel of one resolved setting, made whole (``ItemViewModelTemplates`` fills in only its value's
    /// members).
    static func item(_ setting: ResolvedSetting) -> ItemViewModel {
        ItemViewModel(
            key: setting.key.description,
            id: setting.item.id,
            title: setting.item.title,
            summary: setting.item.summary,
            type: setting.item.type.name,
            value: setting.value.json,
            display: SettingsFormatter.display(setting.value),
            layer: setting.winner,
            modified: setting.isModified,
            locked: setting.isLocked,
            defaultValue: setting.item.defaultValue.json,
            defaultDisplay: SettingsFormatter.display(setting.item.defaultValue),
            constraint: SettingsFormatter.constraint(setting.item.type),
            limits: Self.limits(of: setting.item.type)
        )
    }

    /// The limits of `type` as data, for scripts; `nil` for a `bool`.
    static func limits(of type: SettingType) -> LimitsViewModel? {
        switch type {
        case .bool: return nil
        case .int(let range):
            return LimitsViewModel(
                minimum: range.map { .int($0.lowerBound) },
                maximum: range.map { .int($0.upperBound) }
            )
        case .double(let range):
            return LimitsViewModel(
                minimum: range.map { .double($0.lowerBound) },
                maximum: range.map { .double($0.upperBound) }
            )
        case .string(let choices, let pattern, let maxLength, let maxSize):
            return LimitsViewModel(choices: choices, pattern: pattern, maxLength: maxLength, maxSize: maxSize)
        case .strings(let maxItems, let maxLength, let pattern, let maxSize):
            return LimitsViewModel(pattern: pattern, maxLength: maxLength, maxItems: maxItems, maxSize: maxSize)
        }
    }

    /// The reasons the schemas rejected remote values of `key`, from entries `module.section.item: reason`; `nil`
    /// when none was.
    static func rejections(of key: String, in entries: [String]) -> [String]? {
        let prefix = key + ": "
        let reasons = entries.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        return reasons.isEmpty ? nil : reasons
    }
}
