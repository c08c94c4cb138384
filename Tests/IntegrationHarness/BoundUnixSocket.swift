import Foundation

/// A Unix stream socket bound at `path`, not listening yet: the caller listens on it (or leaves it bound only, where
/// a connection is refused) and closes it.
package func boundUnixSocket(at path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8.prefix($0.count - 1)) }
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
