import Glibc

/// Connects to a serving probe and prints its answer: what `NotifyProbe connect PATH` does.
enum Client {
    static func printReply(from path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else {
            Output.line("connect \(path): \(String(cString: strerror(errno)))")
            return 1
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            reply.append(contentsOf: buffer.prefix(count))
        }
        close(descriptor)
        Output.line(String(decoding: reply, as: UTF8.self).trimmingNewline)
        return 0
    }
}

extension String {
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
