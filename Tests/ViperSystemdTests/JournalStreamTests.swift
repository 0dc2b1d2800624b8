import Foundation
import Testing
import ViperSystemd

#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

extension ProcessEnvironmentTests {
    @Suite("JournalLogHandler.isConnectedToJournal")
    struct JournalStreamTests {
        @Test("false without JOURNAL_STREAM")
        func unset() async {
            await ProcessEnvironment.with(["JOURNAL_STREAM": nil]) {
                #expect(!JournalLogHandler.isConnectedToJournal())
            }
        }

        @Test("true when JOURNAL_STREAM names standard error's device and inode, and the journal's socket is there")
        func matchingStandardError() async throws {
            let stream = try Self.journalStream(of: 2)
            let socket = "/tmp/viper-journal-socket-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let descriptor = open(socket, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            close(descriptor)
            defer { unlink(socket) }
            await ProcessEnvironment.with(["JOURNAL_STREAM": "\(stream.device):\(stream.inode)"]) {
                #expect(JournalLogHandler.isConnectedToJournal(socket: socket))
                // journald not running: sd_journal_sendv would drop every entry and say it sent it.
                #expect(!JournalLogHandler.isConnectedToJournal(socket: socket + ".missing"))
            }
        }

        @Test("false when JOURNAL_STREAM names another file, or is malformed")
        func mismatched() async throws {
            let stream = try Self.journalStream(of: 2)
            for value in [
                "\(stream.device):\(stream.inode + 1)", "\(stream.device + 1):\(stream.inode)", "", "12", "a:b",
            ] {
                await ProcessEnvironment.with(["JOURNAL_STREAM": value]) {
                    #expect(!JournalLogHandler.isConnectedToJournal(), "JOURNAL_STREAM=\(value)")
                }
            }
        }

        @Test("compares with the descriptor given, and is false for a closed one")
        func otherDescriptor() throws {
            let path = "/tmp/viper-journal-stream-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            defer { unlink(path) }
            let stream = try Self.journalStream(of: descriptor)
            let value = "\(stream.device):\(stream.inode)"
            #expect(JournalLogHandler.isConnected(journalStream: value, descriptor: descriptor))
            #expect(!JournalLogHandler.isConnected(journalStream: nil, descriptor: descriptor))
            close(descriptor)
            #expect(!JournalLogHandler.isConnected(journalStream: value, descriptor: descriptor))
        }

        static func journalStream(of descriptor: Int32) throws -> (device: UInt64, inode: UInt64) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                throw SystemCallError(operation: "fstat", code: errno)
            }
            return (UInt64(status.st_dev), UInt64(status.st_ino))
        }
    }
}
