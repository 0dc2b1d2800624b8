import Dispatch
import NIOPosix
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// A write that changes nothing, decided on a state that holds another caller's write not yet durable.
@Suite("JSONFileRepository writes that change nothing")
struct JSONFileRepositoryPendingTests {
    @Test(
        "'unchanged' against a pending write is answered once that write is durable, and decided again if it failed",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func unchangedWaitsForThePendingWrite() async throws {
        let disk = try FullDisk()
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let repository = JSONFileRepository(
            directory: "\(disk.path)/state",
            threadPool: pool,
            logger: LogRecorder().logger
        )
        // Loaded first (on the storage thread); then that one thread is held until both callers have decided, so
        // the first write stays pending meanwhile.
        #expect(try await repository.state(of: "network").revision == 0)
        let release = DispatchSemaphore(value: 0)
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let blocker = Task {
            try await pool.runIfActive {
                holding.yield(())
                release.wait()
            }
        }
        for await _ in held { break }
        try disk.fill()

        let (firstDecided, first) = AsyncStream.makeStream(of: Void.self)
        let (secondDecided, second) = AsyncStream.makeStream(of: Void.self)
        let port = SettingValue.int(5)
        let writer = Task {
            try await repository.update(module: "network") { state in
                first.yield(())
                return LocalChange(set: ["proxy.port": port], revision: state.revision + 1)
            }
        }
        for await _ in firstDecided { break }
        let sameValue = Task {
            try await repository.update(module: "network") { state in
                second.yield(())
                return state.local["proxy.port"] == port
                    ? nil : LocalChange(set: ["proxy.port": port], revision: state.revision + 1)
            }
        }
        for await _ in secondDecided { break }
        release.signal()

        // The disk is full: the first write fails, so the second, decided again, is a change and fails too. It must
        // not have been acknowledged as "unchanged" against a value that was never stored.
        await #expect(throws: (any Error).self) { try await writer.value }
        await #expect(throws: (any Error).self) { try await sameValue.value }
        let durable = try await repository.state(of: "network")
        #expect(durable.local["proxy.port"] == nil)
        #expect(durable.revision == 0)

        // With room again, the same value is a change, stored and durable when acknowledged.
        disk.free()
        let stored = try await repository.update(module: "network") { state in
            state.local["proxy.port"] == port
                ? nil : LocalChange(set: ["proxy.port": port], revision: state.revision + 1)
        }
        #expect(stored.after.revision == 1)
        #expect(try await repository.state(of: "network").local["proxy.port"] == port)
        try await blocker.value
        try await pool.shutdownGracefully()
    }
}
