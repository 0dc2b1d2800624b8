import SettingsAPI
import Synchronization

/// The text templates of the items in recent replies, by key (``ItemViewModel/TextTemplate``): a key's schema
/// members (title, summary, default, limits…) are written once, not in every `Set` and `Get` reply about it.
///
/// A template is used only for an item whose schema members equal those it was made from, so a schema reloaded with
/// a new title gets a new template. Bounded: past `capacity` keys it starts afresh, so a client walking every key of
/// a large schema cannot make it grow without bound.
final class ItemTextCache: Sendable {
    private let templates = Mutex<[String: ItemViewModel.TextTemplate]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` keys.
    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Appends `item` as ``ItemViewModel/writeJSONText(into:)`` does, through its key's template.
    func write(_ item: ItemViewModel, into out: inout [UInt8]) {
        let key = item.key
        if let template = self.templates.withLock({ $0[key] }), template.matches(item) {
            template.write(item, into: &out)
            return
        }
        let template = ItemViewModel.TextTemplate(item)
        self.templates.withLock { templates in
            if templates.count >= self.capacity && templates[key] == nil {
                templates.removeAll(keepingCapacity: true)
            }
            templates[key] = template
        }
        template.write(item, into: &out)
    }

    /// How many keys have a template (for tests).
    var count: Int { self.templates.withLock { $0.count } }
}
