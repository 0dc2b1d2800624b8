import SettingsAPI
import Synchronization

/// The ViewModels of a module's items with the members that come from the schema (key, title, summary, type,
/// default, constraint, limits) made once per item: a reply about one key (`get`, `set`, `explain`) fills in only
/// the members that come from its value. Words for people, as the Presenter makes them.
///
/// One per Presenter, whose schema does not change (a reload builds new Presenters). Bounded: past `capacity` items
/// it starts afresh, so a client walking every key of a large module cannot make it grow without bound.
final class ItemViewModelTemplates: Sendable {
    private let templates = Mutex<[String: ItemViewModel]>([:])
    private let capacity: Int

    /// Templates of at most `capacity` items.
    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The ViewModel of `setting`, as ``SettingsPresenter/item(_:)`` makes it.
    func item(_ setting: ResolvedSetting) -> ItemViewModel {
        let path = setting.key.path
        guard var item = self.templates.withLock({ $0[path] }) else {
            let item = SettingsPresenter.item(setting)
            self.templates.withLock { templates in
                if templates.count >= self.capacity { templates.removeAll(keepingCapacity: true) }
                templates[path] = item
            }
            return item
        }
        let value = setting.value
        item.value = value.json
        item.display = SettingsFormatter.display(value)
        item.layer = setting.winner
        item.modified = setting.isModified
        item.locked = setting.isLocked
        return item
    }

    /// How many items have a template (for tests).
    var count: Int { self.templates.withLock { $0.count } }
}
