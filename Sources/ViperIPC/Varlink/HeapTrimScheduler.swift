import NIOCore
import Synchronization
import ViperPOSIX

/// Gives the memory freed by connections back to the system a moment after some ended: a burst of clients holding
/// large messages (1 MiB calls they never read the replies of) otherwise left the daemon's resident memory near its
/// peak. A connection that ends schedules one look on its event loop, unless one is scheduled already: at most one
/// per ``delay``, and nothing while no connection ends (no timer, no task). The heap is trimmed
/// (``ViperPOSIX/HeapMemory/trim()``) when at least ``minimumFree`` bytes are free in it; then the code pages are
/// dropped as they are once after start (``ViperPOSIX/ExecutableMemory/trimCode()``): the code that ran since,
/// this look's included, comes back from the page cache when it runs again, and an idle daemon holds only what it
/// held after start.
final class HeapTrimScheduler: Sendable {
    let delay: TimeAmount
    /// The free bytes from which the heap is trimmed.
    static let minimumFree = 4 << 20
    private let trim: @Sendable () -> Void
    private let scheduled = Atomic(false)

    /// - Parameters:
    ///   - delay: How long after a connection ends the trim runs.
    ///   - trim: What trims: in the daemon, ``trimWhenWorthIt()``.
    init(delay: TimeAmount = .seconds(1), trim: @escaping @Sendable () -> Void = HeapTrimScheduler.trimWhenWorthIt) {
        self.delay = delay
        self.trim = trim
    }

    /// Trims the heap when ``minimumFree`` bytes are free in it, then drops the code pages.
    static func trimWhenWorthIt() {
        if HeapMemory.freeBytes >= Self.minimumFree { HeapMemory.trim() }
        ExecutableMemory.trimCode()
    }

    /// A connection served on `eventLoop` ended.
    func connectionEnded(on eventLoop: any EventLoop) {
        guard !self.scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        eventLoop.scheduleTask(in: self.delay) {
            self.scheduled.store(false, ordering: .releasing)
            self.trim()
        }
    }
}
