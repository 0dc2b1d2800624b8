import Glibc

/// A descriptor that becomes readable when the task running a command is cancelled (the applier stops): the thread
/// that waits for the command polls it beside the command's end, and ends the command's process group at once.
/// Written from the cancellation handler, read by that thread; closed when the last of them lets go of it.
final class CommandInterruption: Sendable {
    /// The read end of a pipe, or -1 when none could be made (then a cancellation is noticed only when the command
    /// ends).
    let descriptor: Int32
    /// The write end: one byte written marks the command interrupted.
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        for end in ends where end >= 0 {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.descriptor = ends[0]
        self.writeEnd = ends[1]
    }

    deinit {
        if self.descriptor >= 0 { close(self.descriptor) }
        if self.writeEnd >= 0 { close(self.writeEnd) }
    }

    /// Marks the command interrupted: the waiting thread's poll returns.
    func interrupt() {
        guard self.writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(self.writeEnd, &byte, 1)
    }
}
