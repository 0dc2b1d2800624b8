import Dispatch
import Foundation
import ViperTestSupport

/// A program a test runs, with its standard output and error captured together.
///
/// Blocking reads and waits happen on a queue of its own, off the cooperative thread pool.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let pipe: Pipe
    private let queue = DispatchQueue(label: "ChildProcess")
    /// The output read so far; only touched on `queue`.
    private var output = Data()

    /// Starts `executable` with `arguments` and exactly `environment`.
    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        self.process.executableURL = URL(fileURLWithPath: executable)
        self.process.arguments = arguments
        self.process.environment = environment
        self.process.standardInput = FileHandle.nullDevice
        // The pipe is made while no other child is started, which could inherit it (``ProcessStarts``).
        let pipe = ProcessStarts.serialized { Pipe() }
        self.pipe = pipe
        self.process.standardOutput = pipe
        self.process.standardError = pipe
        try ProcessStarts.serialized { try self.process.runAlone() }
        // Only the child writes: its exit ends the output.
        try? self.pipe.fileHandleForWriting.close()
    }

    /// The environment of the test process with `changes` applied.
    static func environment(_ changes: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(changes) { _, new in new }
    }

    /// Reads the output until it contains `text`; `false` if the output ended first.
    func waitForOutput(containing text: String) async -> Bool {
        await withCheckedContinuation { continuation in
            self.queue.async {
                while !String(decoding: self.output, as: UTF8.self).contains(text) {
                    let chunk = self.pipe.fileHandleForReading.availableData
                    guard !chunk.isEmpty else {
                        return continuation.resume(returning: false)
                    }
                    self.output.append(chunk)
                }
                continuation.resume(returning: true)
            }
        }
    }

    /// Reads the output to its end, waits for the exit and returns the exit status (128 + the signal if it was
    /// killed) and the whole output.
    func finish() async -> (status: Int32, output: String) {
        await withCheckedContinuation { continuation in
            self.queue.async {
                self.output.append(self.pipe.fileHandleForReading.readDataToEndOfFile())
                self.process.waitUntilExit()
                let status = self.process.terminationStatus
                continuation.resume(
                    returning: (
                        self.process.terminationReason == .uncaughtSignal ? 128 + status : status,
                        String(decoding: self.output, as: UTF8.self)
                    )
                )
            }
        }
    }
}
