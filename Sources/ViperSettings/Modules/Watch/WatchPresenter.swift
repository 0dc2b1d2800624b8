import SettingsAPI

/// Runs a watch stream and turns its events into ViewModels with display strings ready.
public struct WatchPresenter: WatchPresenterProtocol {
    private let interactor: any WatchInteractorProtocol

    public init(interactor: any WatchInteractorProtocol) {
        self.interactor = interactor
    }

    public func watch(targets: [String], after cursor: WatchCursor?, view: any WatchViewProtocol) async {
        do {
            try await self.interactor.watch(targets: targets, after: cursor) { event in
                try await view.display(Self.viewModel(event))
            }
        } catch let failure as SettingsFailure {
            await view.display(failure: SettingsFormatter.error(failure))
        } catch {
            // The client went away or the stream was cancelled: nothing to tell.
        }
    }

    /// Why a stream starts over, in words.
    static func reason(_ reason: WatchResyncReason) -> String {
        switch reason {
        case .historyTooShort(let module):
            "the change history of module \(module) does not reach back to the cursor; sending the current values"
        case .cursorLacksModule(let module):
            "the cursor has no position in module \(module) (it was made for a watch of other modules); sending the"
                + " current values"
        case .cursorAhead(let module, let revision):
            "the cursor is ahead of module \(module), which is at revision \(revision) (a cursor of another daemon or"
                + " state directory); sending the current values"
        case .noSuchPosition(let module, let revision, let index, let changes):
            "the cursor's position \(revision).\(index) in module \(module) was never given out: revision \(revision)"
                + " changed \(changes) key\(changes == 1 ? "" : "s") (a cursor of another daemon or state directory);"
                + " sending the current values"
        case .otherHistory(let history, let current):
            "the cursor is of history \(history), and the state directory holds "
                + (current.map { "history \($0)" } ?? "none")
                + " (a cursor of another state directory, or of this one before its state was reset); sending the"
                + " current values"
        case .fellBehind:
            "the watcher read too slowly and changes were dropped; sending the current values"
        case .moduleAdded(let module):
            "a schema reload added module \(module); sending the current values of every module"
        case .stateReloaded(let module):
            "the state files of module \(module) load again (what was served meanwhile may not have been all they"
                + " hold); sending the current values"
        case .stateUnusable(let module, let reason):
            "the state files of module \(module) cannot be used (\(reason)); sending the current values of the other"
                + " modules (module \(module)'s once its files can be used)"
        case .schemaChangeNotStored(let module):
            "a schema reload changed values of module \(module) but the change could not be stored (the state"
                + " directory cannot be written); sending the current values"
        case .historyRejected(let module, let key):
            "the change history of module \(module) holds a value of \(key) that its schema rejects (a state file"
                + " edited by hand, or a schema changed since); sending the current values"
        case .moduleRemoved(let module):
            "module \(module) of the cursor is no longer served (a schema change removed it); sending the current"
                + " values of every module"
        }
    }

    /// The ViewModel of one event.
    static func viewModel(_ event: WatchEvent) -> WatchEventViewModel {
        switch event {
        case .current(let setting, let revision, let cursor):
            var model = WatchEventViewModel(event: .current, cursor: cursor.description)
            model.key = setting.key.description
            model.value = setting.value.json
            model.display = SettingsFormatter.display(setting.value)
            model.layer = setting.winner
            model.revision = revision
            return model
        case .ready(let cursor):
            return WatchEventViewModel(event: .ready, cursor: cursor.description)
        case .change(let module, let change, let revision, let cause, let cursor):
            var model = WatchEventViewModel(event: .change, cursor: cursor.description)
            model.key = "\(module).\(change.path)"
            model.value = change.new?.json
            model.display = change.new.map(SettingsFormatter.display)
            model.layer = change.layer
            model.old = change.old?.json
            model.oldDisplay = change.old.map(SettingsFormatter.display)
            model.oldLayer = change.oldLayer
            model.revision = revision
            switch cause {
            case .client(let uid, let pid):
                model.cause = "client"
                model.uid = Int64(uid)
                model.pid = Int64(pid)
            case .remote(let remoteRevision):
                model.cause = "remote"
                model.remoteRevision = remoteRevision
            case .schema:
                model.cause = "schema"
            }
            return model
        case .resync(let reason):
            var model = WatchEventViewModel(event: .resync, cursor: "")
            model.reason = Self.reason(reason)
            return model
        }
    }
}
