import Glibc

/// A fresh directory under /tmp, removed with its contents by ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/viper-ipc-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard created != nil else { throw SystemCallError(call: "mkdtemp", errno: errno) }
        self.path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the directory and everything in it.
    func remove() {
        Self.removeTree(self.path)
    }

    private static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR {
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                        String(cString: bytes.bindMemory(to: CChar.self).baseAddress!)
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { Self.removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// A failed system call in a test helper.
struct SystemCallError: Error, CustomStringConvertible {
    var call: String
    var errno: Int32
    var description: String { "\(self.call) failed: \(String(cString: strerror(self.errno)))" }
}

/// The file type and permission bits at `path`, or `nil` if nothing is there.
func fileMode(_ path: String) -> mode_t? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return status.st_mode
}

/// Whether a Unix socket file exists at `path`.
func isSocket(_ path: String) -> Bool {
    guard let mode = fileMode(path) else { return false }
    return mode & S_IFMT == S_IFSOCK
}

/// Creates a Unix stream socket bound to `path`; listening if `listen` is true. Returns its descriptor.
func makeBoundSocket(path: String, listen shouldListen: Bool) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw SystemCallError(call: "socket", errno: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in bytes.copyBytes(from: path.utf8) }
    let bound = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard bound == 0 else {
        let error = SystemCallError(call: "bind", errno: errno)
        close(descriptor)
        throw error
    }
    if shouldListen {
        guard listen(descriptor, 16) == 0 else {
            let error = SystemCallError(call: "listen", errno: errno)
            close(descriptor)
            throw error
        }
    }
    return descriptor
}
