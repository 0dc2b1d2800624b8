import NIOPosix
import SettingsAPI
import Synchronization
import ViperIPC
import ViperSettings

/// `org.example.test`, an interface whose methods exercise the server's call handling.
final class TestInterface: VarlinkInterface {
    let name = "org.example.test"
    let description = """
        # Methods for testing the Varlink server.
        interface org.example.test

        method Echo(value: ?object) -> (value: ?object)
        method Fail() -> ()
        method Stream() -> (index: int)
        method Slow() -> (done: bool)
        method WhoAmI() -> (pid: int, uid: int, gid: int)
        method Crash() -> ()
        method Silent() -> ()
        method ContinuesWithoutMore() -> ()
        method ReplyTwice() -> (count: int)
        method Flood() -> (index: int)
        method Forever() -> (index: int)
        method NotAnObject() -> ()
        method Where() -> (onEventLoop: bool)
        method Now(value: ?object) -> (now: bool, value: ?object)
        method Counter() -> (count: int)

        error Failed (reason: string)
        error TooManyConnections (limit: string, maximum: int)

        """
    let methods: Set<String> = [
        "Echo", "Fail", "Stream", "Slow", "WhoAmI", "Crash", "Silent", "ContinuesWithoutMore", "ReplyTwice", "Flood",
        "Forever", "NotAnObject", "Where", "Now", "Counter",
    ]

    /// Every call received, in order.
    let calls = Mutex<[VarlinkCall]>([])
    /// The errors replies threw at handlers, in order.
    let replyErrors = Mutex<[VarlinkServerError]>([])
    /// Fires when `Slow` started.
    let slowStarted = TestSignal()
    /// Lets `Slow` finish.
    let slowRelease = TestSignal()
    /// Fires when `Flood` ended because a reply failed.
    let floodEnded = TestSignal()
    /// Fires when `Forever` sent its first reply.
    let foreverStarted = TestSignal()
    /// Fires when `Forever` ended, i.e. was cancelled.
    let foreverEnded = TestSignal()

    /// What `Counter` answers.
    let count = Atomic<Int64>(0)
    /// The interface's ``replyNowGeneration``, `nil` while it is 0 (no reply reused).
    let generation = Atomic<UInt64>(0)
    /// How many replies ``replyNow(to:)`` made.
    let madeNow = Atomic<Int>(0)

    var replyNowGeneration: UInt64? {
        let generation = self.generation.load(ordering: .sequentiallyConsistent)
        return generation == 0 ? nil : generation
    }

    /// `Now` is answered on the spot, with `now: true`; when it cannot be (a call before it is still in progress),
    /// ``handle(_:peer:replies:)`` answers it with `now: false`. So is `Counter`, with ``count``.
    func replyNow(to call: VarlinkCall) -> [UInt8]? {
        var text: [UInt8] = []
        switch call.methodName {
        case "Now":
            JSONValue.object(["now": true, "value": call.parameters["value"] ?? .null]).write(into: &text)
        case "Counter":
            JSONValue.object(["count": .int(self.count.load(ordering: .sequentiallyConsistent))]).write(into: &text)
        default:
            return nil
        }
        self.madeNow.add(1, ordering: .sequentiallyConsistent)
        return text
    }

    func handle(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws {
        self.calls.withLock { $0.append(call) }
        switch call.methodName {
        case "Echo":
            try await replies.reply(.object(call.parameters))
        case "Fail":
            throw VarlinkError(name: "org.example.test.Failed", parameters: ["reason": "asked to fail"])
        case "Stream":
            guard call.more else { throw VarlinkError.expectedMore() }
            for index in 0..<3 {
                try await replies.reply(["index": .int(Int64(index))], continues: true)
            }
            try await replies.reply(["index": 3])
        case "Slow":
            self.slowStarted.fire()
            await self.slowRelease.wait()
            try await replies.reply(["done": true])
        case "WhoAmI":
            try await replies.reply([
                "pid": .int(Int64(peer.pid)), "uid": .int(Int64(peer.uid)), "gid": .int(Int64(peer.gid)),
                "groups": .array(peer.groups.map { .int(Int64($0)) }),
            ])
        case "Crash":
            throw TestInterfaceCrash()
        case "Silent":
            return
        case "ContinuesWithoutMore":
            try await replies.reply(["sent": true], continues: true)
        case "ReplyTwice":
            try await replies.reply(["count": 1])
            do {
                try await replies.reply(["count": 2])
            } catch let error as VarlinkServerError {
                self.replyErrors.withLock { $0.append(error) }
            }
        case "Flood":
            try await self.flood(replies)
        case "Forever":
            try await replies.reply(["index": 0], continues: true)
            self.foreverStarted.fire()
            defer { self.foreverEnded.fire() }
            await TestSignal().wait()  // never fires; returns when cancelled
            try Task.checkCancellation()
        case "NotAnObject":
            do {
                try await replies.reply([1, 2])
            } catch let error as VarlinkServerError {
                self.replyErrors.withLock { $0.append(error) }
            }
            try await replies.reply([:])
        case "Now":
            // Only when the event loop did not answer it on the spot (see replyNow(to:)).
            try await replies.reply(["now": false, "value": call.parameters["value"] ?? .null])
        case "Counter":
            try await replies.reply(["count": .int(self.count.load(ordering: .sequentiallyConsistent))])
        case "Where":
            try await replies.reply(["onEventLoop": .bool(MultiThreadedEventLoopGroup.currentEventLoop != nil)])
        default:
            throw VarlinkError.methodNotImplemented(call.method)
        }
    }

    private func flood(_ replies: any VarlinkReplySink) async throws {
        defer { self.floodEnded.fire() }
        var index: Int64 = 0
        while true {
            try await replies.reply(
                ["index": .int(index), "padding": .string(String(repeating: "x", count: 1000))],
                continues: true
            )
            index += 1
        }
    }
}

/// The non-Varlink error `Crash` throws.
struct TestInterfaceCrash: Error {}

/// A one-shot signal between a test and a handler: ``fire()`` once, ``wait()`` from one task.
final class TestSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (self.stream, self.continuation) = AsyncStream<Void>.makeStream()
    }

    /// Fires the signal.
    func fire() {
        self.continuation.finish()
    }

    /// Returns once the signal fired, or the task is cancelled.
    func wait() async {
        for await _ in self.stream {}
    }
}
