import Glibc

/// The leanest honest Varlink client: a blocking `AF_UNIX` stream socket, NUL framing, and a byte buffer — the same
/// shape as the floor's client in `floor.c`.
///
/// Nothing here allocates per message: requests are written from prepared bytes, and replies are handed to the
/// caller as a view into the receive buffer, valid until the next read.
final class RawConnection {
    /// The socket.
    let fd: Int32
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes `[head, tail)` of `buffer` are received and not yet taken.
    private var head = 0
    private var tail = 0
    /// Bytes `[head, scanned)` are known to hold no NUL.
    private var scanned = 0

    /// Connects to the socket at `path`.
    init(path: String, initialCapacity: Int = 16384) throws {
        let socket = try UnixSocket.make(type: Int32(SOCK_STREAM.rawValue))
        let connected = try UnixSocket.withAddress(path) { connect(socket, $0, $1) }
        guard connected == 0 else {
            let error = BenchError.system("connect(\(path))")
            close(socket)
            throw error
        }
        fd = socket
        capacity = initialCapacity
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    // MARK: - Writing

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BenchError.system("write")
            }
            offset += written
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    // MARK: - Reading

    /// Reads once, blocking until something arrives. Returns `false` when the peer closed the connection.
    @discardableResult
    func fill() throws -> Bool {
        if head > 0, head == tail {
            head = 0
            tail = 0
            scanned = 0
        } else if capacity - tail < capacity / 4 {
            compactOrGrow()
        }
        while true {
            let count = read(fd, buffer + tail, capacity - tail)
            if count > 0 {
                tail += count
                return true
            }
            if count == 0 { return false }
            if errno != EINTR { throw BenchError.system("read") }
        }
    }

    /// Whether a complete message is buffered.
    var hasMessage: Bool {
        firstTerminator() != nil
    }

    /// Hands the next complete buffered message (without its NUL) to `body` and consumes it; `nil` when no complete
    /// message is buffered.
    func takeMessage<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard let end = firstTerminator() else { return nil }
        let message = UnsafeRawBufferPointer(start: buffer + head, count: end - head)
        let result = try body(message)
        head = end + 1
        scanned = head
        return result
    }

    /// Reads until a complete message is buffered, then hands it to `body` and consumes it.
    func nextMessage<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        while true {
            if let result = try takeMessage(body) { return result }
            guard try fill() else { throw BenchError("the daemon closed the connection") }
        }
    }

    /// The offset of the first buffered NUL at or after `head`, remembering how far it looked.
    private func firstTerminator() -> Int? {
        guard scanned < tail else { return nil }
        if let found = memchr(buffer + scanned, 0, tail - scanned) {
            return buffer.distance(to: found)
        }
        scanned = tail
        return nil
    }

    /// Moves unread bytes to the front, and doubles the buffer when they fill more than half of it.
    private func compactOrGrow() {
        let pending = tail - head
        if pending > capacity / 2 {
            let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
            larger.copyMemory(from: buffer + head, byteCount: pending)
            buffer.deallocate()
            buffer = larger
            capacity *= 2
        } else if head > 0 {
            memmove(buffer, buffer + head, pending)
        }
        scanned -= head
        head = 0
        tail = pending
    }
}
