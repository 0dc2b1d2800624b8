import SettingsAPI
import Synchronization

/// The encoded parameters of the last value reply (`Get`) of each key, reused while the value's ViewModel is the
/// same: comparing two ViewModels costs a fraction of encoding one, and most gets find nothing changed.
///
/// Bounded: past `capacity` keys it starts afresh, so a client walking every key of a large schema cannot make it
/// grow without bound.
final class ValueReplyCache: Sendable {
    private struct Entry {
        var viewModel: ValueViewModel
        var text: [UInt8]
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` keys.
    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The encoded form of `viewModel`: the cached text when the cached ViewModel of its key is equal, else
    /// `encode()`'s, which is kept for the next time.
    func text(for viewModel: ValueViewModel, encode: () throws -> [UInt8]) rethrows -> [UInt8] {
        let key = viewModel.item.key
        if let cached = self.entries.withLock({ $0[key] }), cached.viewModel == viewModel {
            return cached.text
        }
        let text = try encode()
        self.entries.withLock { entries in
            if entries.count >= self.capacity && entries[key] == nil {
                entries.removeAll(keepingCapacity: true)
            }
            entries[key] = Entry(viewModel: viewModel, text: text)
        }
        return text
    }
}
