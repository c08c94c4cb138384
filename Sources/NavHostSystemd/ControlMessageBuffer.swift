import Glibc

/// The ancillary data of one `sendmsg(2)` that passes file descriptors (`SCM_RIGHTS`).
///
/// Lays out a `cmsghdr` and its payload the way the `CMSG_*` macros do; those macros are not imported into Swift.
struct ControlMessageBuffer {
    // MARK: - Private Properties

    private var bytes: [UInt8]

    // MARK: - Initialization

    /// A buffer that passes `descriptors` to the receiver.
    init(rights descriptors: [Int32]) {
        let payloadLength = descriptors.count * MemoryLayout<Int32>.size
        let headerLength = Self.aligned(MemoryLayout<cmsghdr>.size)
        bytes = [UInt8](repeating: 0, count: headerLength + Self.aligned(payloadLength))
        bytes.withUnsafeMutableBytes { buffer in
            var header = cmsghdr()
            header.cmsg_len = headerLength + payloadLength
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = Int32(SCM_RIGHTS)
            buffer.storeBytes(of: header, as: cmsghdr.self)
            for (index, descriptor) in descriptors.enumerated() {
                buffer.storeBytes(
                    of: descriptor,
                    toByteOffset: headerLength + index * MemoryLayout<Int32>.size,
                    as: Int32.self
                )
            }
        }
    }

    // MARK: - Functions

    /// Calls `body` with the buffer's address and length, for `msghdr.msg_control` and `msg_controllen`.
    func withControlBytes<Result>(_ body: (UnsafeMutableRawPointer, Int) throws -> Result) rethrows -> Result {
        var copy = bytes
        return try copy.withUnsafeMutableBytes { buffer in
            try body(buffer.baseAddress!, buffer.count)
        }
    }

    /// `CMSG_ALIGN`: rounds up to the alignment of `size_t`.
    static func aligned(_ length: Int) -> Int {
        let alignment = MemoryLayout<Int>.size
        return (length + alignment - 1) & ~(alignment - 1)
    }
}
