import Foundation
import Testing
import ViperSystemd

#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

extension ProcessEnvironmentTests {
    @Suite("SocketActivation", .timeLimit(.minutes(1)))
    struct SocketActivationTests {
        @Test("no descriptors without LISTEN_FDS")
        func noneWithoutListenFDs() async {
            await ProcessEnvironment.with(["LISTEN_FDS": nil, "LISTEN_PID": nil, "LISTEN_FDNAMES": nil]) {
                #expect(SocketActivation.listeningDescriptors().isEmpty)
            }
        }

        @Test("no descriptors when LISTEN_PID is another process, and the variables are removed")
        func noneForAnotherProcess() async {
            await ProcessEnvironment.with(["LISTEN_FDS": "1", "LISTEN_PID": "1", "LISTEN_FDNAMES": "varlink"]) {
                #expect(SocketActivation.listeningDescriptors().isEmpty)
                #expect(ProcessEnvironment.value("LISTEN_FDS") == nil)
                #expect(ProcessEnvironment.value("LISTEN_PID") == nil)
                #expect(ProcessEnvironment.value("LISTEN_FDNAMES") == nil)
            }
        }

        @Test("isListening tells a listening socket from a connected one, a pipe and a closed descriptor")
        func isListening() throws {
            let path = "/tmp/viper-listen-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sock"
            let listening = try TestSockets.listening(at: path)
            defer {
                close(listening)
                unlink(path)
            }
            let (left, right) = try TestSockets.pair()
            defer {
                close(left)
                close(right)
            }
            var pipeEnds: [Int32] = [-1, -1]
            try #require(pipe(&pipeEnds) == 0)
            defer {
                for end in pipeEnds {
                    close(end)
                }
            }

            #expect(SocketActivation.isListening(listening))
            #expect(!SocketActivation.isListening(left))
            #expect(!SocketActivation.isListening(pipeEnds[0]))
            #expect(!SocketActivation.isListening(-1))
        }

        @Test(
            "a process started by systemd-socket-activate gets the listening socket with its name, once",
            .enabled(if: access("/usr/bin/systemd-socket-activate", X_OK) == 0)
        )
        func underSystemdSocketActivate() async throws {
            try await TemporaryDirectory.with { directory in try await Self.socketActivate(in: directory) }
        }

        static func socketActivate(in directory: String) async throws {
            let socketPath = directory + "/varlink.sock"
            let child = try ChildProcess(
                "/usr/bin/timeout",
                ["-k", "5", "50", "/usr/bin/systemd-socket-activate", "--listen=\(socketPath)", "--fdname=varlink"]
                    + ["-E", "VIPER_SYSTEMD_TEST_CHILD=socket-activation"]
                    + ["-E", "VIPER_SYSTEMD_TEST_DIRECTORY=\(directory)"]
                    + ChildEntryPoints.command(running: "socketActivated"),
                environment: ChildProcess.environment([:])
            )
            // systemd-socket-activate says so once it listens, and starts the child on the first connection.
            #expect(await child.waitForOutput(containing: "Listening on \(socketPath)"))
            let connection = try TestSockets.connected(to: socketPath)
            defer { close(connection) }
            let (status, output) = await child.finish()
            #expect(status == 0, "the child failed:\n\(output)")
            let report = try String(contentsOfFile: directory + "/socket-activation", encoding: .utf8)
            #expect(
                report.split(separator: "\n") == [
                    "fd=3 name=varlink listening=true", "LISTEN_FDS=unset", "second call=0", "accepted=true",
                ]
            )
        }
    }
}
