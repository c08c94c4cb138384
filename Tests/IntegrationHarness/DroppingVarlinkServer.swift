import Foundation
package import NavHostJSON
import Synchronization

/// A Unix-socket server that plays a daemon dying mid-conversation: on each connection it answers the first call with
/// the scripted replies, each marked `continues`, then closes the connection without a final reply. A connection that
/// sends no call is closed when its client closes it. Each connection has a thread of its own.
///
/// It runs on a thread of its own with blocking sockets, so that no server library's shutdown path is involved.
package final class DroppingVarlinkServer: Sendable {
    /// The socket clients connect to.
    package let socketPath: String
    private let listener: Int32
    private let stopped = Mutex(false)

    /// Listens on a fresh socket path and answers every first call with `replies`, each sent with `continues`.
    package init(replies: [JSONObject]) throws {
        socketPath = TestPaths.socketPath()
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = socketPath
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8.prefix($0.count - 1)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            let code = errno
            close(listener)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.listener = listener
        let messages = try replies.map { reply -> [UInt8] in
            try JSONValue.object(["parameters": .object(reply), "continues": true]).serializedBytes() + [0]
        }
        Thread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread { Self.serve(connection, messages: messages) }.start()
            }
        }
        .start()
    }

    /// Reads until the first NUL (one call) or the end; after a call, writes the replies and closes.
    private static func serve(_ connection: Int32, messages: [[UInt8]]) {
        defer { close(connection) }
        var byte: UInt8 = 0
        while read(connection, &byte, 1) == 1 {
            guard byte == 0 else { continue }
            for message in messages {
                _ = message.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            }
            return
        }
    }

    /// Stops listening and removes the socket file.
    package func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(socketPath)
    }

    deinit { stop() }
}
