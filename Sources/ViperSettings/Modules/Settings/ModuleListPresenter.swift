import SettingsAPI

/// Presents the list of modules (`ListModules`): each module's Presenter gives its summary line.
public struct ModuleListPresenter: Sendable {
    private let presenters: [any SettingsPresenterProtocol]

    /// Creates the Presenter of the list of `presenters`' modules.
    public init(presenters: [any SettingsPresenterProtocol]) {
        self.presenters = presenters.sorted { $0.moduleName < $1.moduleName }
    }

    /// Shows the list, sorted by module name, on `view`.
    public func present(on view: any SettingsViewProtocol) async {
        var summaries: [ModuleSummaryViewModel] = []
        for presenter in self.presenters { summaries.append(await presenter.summary()) }
        await view.display(.modules(ModuleListViewModel(modules: summaries)))
    }
}
