import Foundation
package import NavHostJSON
import Synchronization

/// A Unix-socket server that plays a daemon dying mid-conversation: on each connection it answers the first call with
/// the scripted replies, each marked `continues`, then closes the connection without a final reply. A connection that
/// sends no call is closed when its client closes it. Each connection has a thread of its own. With `continues: false`
/// it plays a server other than navhostd that answers one call as it likes, then hangs up.
///
/// It runs on a thread of its own with blocking sockets, so that no server library's shutdown path is involved.
package final class DroppingVarlinkServer: Sendable {
    /// The socket clients connect to.
    package let socketPath: String
    private let listener: Int32
    private let stopped = Mutex(false)

    /// Listens on a fresh socket path and answers every first call with `replies`, each sent with `continues` unless
    /// `continues` is `false`: then a connection gets them as final replies (one for a plain call), then its end.
    package init(replies: [JSONObject], continues: Bool = true) throws {
        socketPath = TestPaths.socketPath()
        let listener = try boundUnixSocket(at: socketPath)
        guard listen(listener, 8) == 0 else {
            let code = errno
            close(listener)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.listener = listener
        let messages = try replies.map { reply -> [UInt8] in
            var message: JSONObject = ["parameters": .object(reply)]
            if continues { message["continues"] = true }
            return try JSONValue.object(message).serializedBytes() + [0]
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
