import Foundation

/// Binds an `AF_UNIX` stream socket at `path` without listening on it, so that connecting is refused
/// (`ECONNREFUSED`), as with a socket file a crashed daemon left behind. Returns its descriptor.
func boundUnlistenedSocket(at path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard bound == 0 else {
        let code = errno
        close(descriptor)
        throw POSIXError(.init(rawValue: code) ?? .EIO)
    }
    return descriptor
}
