import NIOCore
package import NIOPosix
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
package final class HeapTrimScheduler: Sendable {
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

    /// Trims the heap when ``minimumFree`` bytes are free in it, then drops the code pages, on a thread of NIO's
    /// blocking pool (see ``dropCodePages()``).
    static func trimWhenWorthIt() {
        Self.onPoolThread {
            if HeapMemory.freeBytes >= Self.minimumFree { HeapMemory.trim() }
            ExecutableMemory.trimCode()
        }
    }

    /// Drops the code pages (``ViperPOSIX/ExecutableMemory/trimCode()``) on a thread of `pool`, not on the
    /// caller's. Every page of code run after the drop comes back with the 64 KiB around it (the kernel's
    /// fault-around): on an event loop, the rest of its tick and its way back to `epoll_wait` brought back ~27 such
    /// runs, 1.3 MiB of an idle daemon's 12 MiB; a pool thread only goes back to waiting for work.
    package static func dropCodePages(
        on pool: NIOThreadPool = .singleton,
        _ drop: @escaping @Sendable () -> Void = { ExecutableMemory.trimCode() }
    ) {
        Self.onPoolThread(pool, drop)
    }

    /// Runs `body` on a thread of `pool`; not at all once the pool has stopped (at exit).
    private static func onPoolThread(_ pool: NIOThreadPool = .singleton, _ body: @escaping @Sendable () -> Void) {
        pool.submit { state in
            guard case .active = state else { return }
            body()
        }
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
