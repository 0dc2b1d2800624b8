import Glibc
import ViperTestSupport

/// A Varlink server on a real Unix socket in a temporary directory, served by its own thread: it accepts
/// one connection, reads one call up to its NUL byte, writes the canned reply in the given pieces (pausing
/// between them, 20 ms unless told) and closes the connection; it stops early when the client has gone.
final class FakeVarlinkServer: @unchecked Sendable {
    /// The socket's path.
    let path: String
    private let directory: String
    private let state: State
    private var thread = pthread_t()
    private var joined = false

    /// What the thread owns until it is joined.
    private final class State {
        let listener: Int32
        let pieces: [[UInt8]]
        let pauseMicroseconds: UInt32
        var request: [UInt8] = []

        init(listener: Int32, pieces: [[UInt8]], pauseMicroseconds: UInt32) {
            self.listener = listener
            self.pieces = pieces
            self.pauseMicroseconds = pauseMicroseconds
        }

        func serve() {
            var waiting = pollfd(fd: self.listener, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 5_000) == 1 else { return }
            let connection = Descriptors.accept(self.listener)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) == 1, byte != 0 {
                self.request.append(byte)
            }
            for (index, piece) in self.pieces.enumerated() {
                if index > 0 { usleep(self.pauseMicroseconds) }
                let sent = piece.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 { return }
            }
        }
    }

    /// A server that answers with `reply` (a whole message without its NUL byte), cut into `pieces` writes.
    convenience init(reply: String, pieces: Int = 1) {
        var bytes = Array(reply.utf8)
        bytes.append(0)
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        let chunks = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
        self.init(pieces: chunks)
    }

    /// A server that writes `pieces` as they are, `pauseMicroseconds` apart, then closes.
    init(pieces: [[UInt8]], pauseMicroseconds: UInt32 = 20_000) {
        var template = Array("/tmp/settingsctl-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        self.directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.path = self.directory + "/io.viper.settings"

        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(self.path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(bound == 0 && listen(listener, 4) == 0, "bind or listen failed: \(errno)")
        self.state = State(listener: listener, pieces: pieces, pauseMicroseconds: pauseMicroseconds)

        let context = Unmanaged.passRetained(self.state).toOpaque()
        let started = pthread_create(
            &self.thread,
            nil,
            { context in
                let state = Unmanaged<State>.fromOpaque(context!).takeRetainedValue()
                state.serve()
                return nil
            },
            context
        )
        precondition(started == 0, "pthread_create failed")
    }

    /// Waits for the server to finish and returns the call it received (without its NUL byte), as text.
    func finish() -> String {
        if !self.joined {
            pthread_join(self.thread, nil)
            self.joined = true
        }
        return String(decoding: self.state.request, as: UTF8.self)
    }

    deinit {
        _ = self.finish()
        close(self.state.listener)
        unlink(self.path)
        rmdir(self.directory)
    }
}
