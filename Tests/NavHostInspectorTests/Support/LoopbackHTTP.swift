import Foundation
import IntegrationHarness

/// One HTTP/1.1 request to 127.0.0.1 over a plain socket, for the requests a browser would not make: no token, a
/// wrong one, a websocket upgrade from another origin.
enum LoopbackHTTP {
    /// Sends `lines` (the request line and headers, without the blank line) to `port` and returns the status code.
    static func status(port: Int, _ lines: [String]) async throws -> Int {
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n"
        return try await offThePool {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
            defer { close(descriptor) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw Failure(description: "connect to port \(port): \(errno)") }
            let bytes = Array(request.utf8)
            guard write(descriptor, bytes, bytes.count) == bytes.count else { throw Failure(description: "write") }
            var reply: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !reply.contains(UInt8(ascii: "\n")) {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { break }
                reply += buffer[0..<count]
            }
            // "HTTP/1.1 401 Unauthorized"
            let statusLine = String(decoding: reply, as: UTF8.self).split(separator: "\r\n").first ?? ""
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, let code = Int(parts[1]) else {
                throw Failure(description: "no status line in \"\(statusLine)\"")
            }
            return code
        }
    }

    /// The request failed before a status came back.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
