import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import ViperIPC

@Suite("A connection's activity: idle timeout and graceful shutdown")
struct VarlinkConnectionActivityTests {
    private func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/activity-test")).wait()
        return channel
    }

    private let logger = Logger(label: "activity-tests") { _ in SwiftLogNoOpLogHandler() }

    @Test("a shutdown during a call answered on the event loop closes the connection when that call ends")
    func shutdownDuringImmediateCall() throws {
        let channel = try self.connected()
        let activity = VarlinkConnectionActivity(channel: channel, idleTimeout: nil, logger: self.logger)
        #expect(activity.becomeIdle())  // the connection's task waits for a call
        #expect(activity.beginImmediateCall())
        activity.shutDown()  // busy: left to the end of the call
        channel.embeddedEventLoop.run()
        #expect(channel.isActive)
        activity.endImmediateCall()
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive, "the waiting task would never close it")
        #expect(!activity.becomeIdle() && !activity.beginCall() && !activity.beginImmediateCall())
    }

    @Test("a shutdown while idle closes after a short grace; while the task is busy, the task stops after its call")
    func shutdownIdleAndBusy() throws {
        let idle = try self.connected()
        let idleActivity = VarlinkConnectionActivity(channel: idle, idleTimeout: nil, logger: self.logger)
        #expect(idleActivity.becomeIdle())
        idleActivity.shutDown()
        idle.embeddedEventLoop.run()
        #expect(idle.isActive, "a call already sent may still arrive")
        idle.embeddedEventLoop.advanceTime(by: VarlinkConnectionActivity.shutdownGrace)
        #expect(!idle.isActive)
        #expect(!idleActivity.beginCall() && !idleActivity.beginImmediateCall())

        let busy = try self.connected()
        let busyActivity = VarlinkConnectionActivity(channel: busy, idleTimeout: nil, logger: self.logger)
        #expect(busyActivity.becomeIdle() && busyActivity.beginCall())
        busyActivity.shutDown()
        busy.embeddedEventLoop.run()
        #expect(busy.isActive, "the call in progress finishes")
        #expect(!busyActivity.becomeIdle(), "the task then stops")
        #expect(!busyActivity.beginImmediateCall())
        _ = try? busy.finish()
    }

    @Test(
        "a call that arrives in the shutdown's grace (sent before it) is answered, and is the last",
        arguments: [false, true]
    )
    func callInGrace(immediate: Bool) throws {
        let channel = try self.connected()
        let activity = VarlinkConnectionActivity(channel: channel, idleTimeout: .seconds(60), logger: self.logger)
        let loop = channel.embeddedEventLoop
        #expect(activity.becomeIdle())
        activity.shutDown()
        #expect(activity.becomeIdle(), "the task keeps waiting for the call already sent")
        if immediate {
            #expect(activity.beginImmediateCall())
            loop.advanceTime(by: VarlinkConnectionActivity.shutdownGrace)
            #expect(channel.isActive, "the grace does not cut the call")
            activity.endImmediateCall()
            loop.run()
        } else {
            #expect(activity.beginCall())
            loop.advanceTime(by: VarlinkConnectionActivity.shutdownGrace)
            #expect(channel.isActive, "the grace does not cut the call")
            #expect(!activity.becomeIdle(), "the task then stops")
            _ = try? channel.close().wait()
        }
        #expect(!channel.isActive)
        #expect(!activity.beginCall() && !activity.beginImmediateCall())
    }

    @Test("a call in the grace that never ends is cut by the drain timeout")
    func callInGraceDrained() throws {
        let channel = try self.connected()
        let activity = VarlinkConnectionActivity(
            channel: channel,
            idleTimeout: nil,
            drainTimeout: .seconds(5),
            logger: self.logger
        )
        #expect(activity.becomeIdle())
        activity.shutDown()
        #expect(activity.beginCall())
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("the idle timeout counts from the end of the last call, whichever way it was answered")
    func idleTimeout() throws {
        let channel = try self.connected()
        let activity = VarlinkConnectionActivity(channel: channel, idleTimeout: .seconds(10), logger: self.logger)
        let loop = channel.embeddedEventLoop
        #expect(activity.becomeIdle())
        loop.advanceTime(by: .seconds(6))
        #expect(activity.beginImmediateCall())
        activity.endImmediateCall()
        loop.advanceTime(by: .seconds(6))  // 12 s since the start, 6 s since the last call
        #expect(channel.isActive)
        #expect(activity.beginCall())
        loop.advanceTime(by: .seconds(30))  // a long call is never cut
        #expect(channel.isActive)
        #expect(activity.becomeIdle())
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "closed 10 s after the call ended")
    }

    @Test("a connection that ends leaves no idle check behind on the event loop, and takes no further call")
    func endCancelsIdleCheck() throws {
        let channel = try self.connected()
        let activity = VarlinkConnectionActivity(channel: channel, idleTimeout: .seconds(60), logger: self.logger)
        #expect(activity.becomeIdle())
        let check = try #require(activity.pendingIdleCheck)
        activity.end()
        #expect(activity.pendingIdleCheck == nil)
        #expect(throws: EventLoopError.cancelled) { try check.futureResult.wait() }
        #expect(!activity.becomeIdle() && !activity.beginCall() && !activity.beginImmediateCall())
        #expect(activity.pendingIdleCheck == nil, "becoming idle after the end schedules nothing")
    }
}
