import NIOCore

/// Runs a task's jobs on one NIO event loop: the task that serves a connection prefers its channel's loop, so
/// reading a call, handling it and writing the reply need no thread switch (each switch is a wake-up that costs
/// more than the call itself on a short `get`).
///
/// Only the connection's own task prefers the loop; an actor it calls still runs isolated, on this loop while
/// the actor is free. Work that blocks (file I/O, fsync) is not done here: the store runs it on a thread pool.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop that runs the jobs.
    let eventLoop: any EventLoop

    /// Creates an executor for `eventLoop`.
    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = self.asUnownedTaskExecutor()
        self.eventLoop.execute {
            job.runSynchronously(on: executor)
        }
    }
}
