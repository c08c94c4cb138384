import CSystemd
import Glibc

/// Finds the sockets systemd passed to this process (`LISTEN_FDS`, `LISTEN_FDNAMES`, `LISTEN_PID`).
///
/// A `.socket` unit with `FileDescriptorName=varlink` hands the daemon an already listening socket: clients can
/// connect before the daemon runs, and across its restarts. The daemon asks for that descriptor by name and binds the
/// path itself only when there is none.
///
/// ```swift
/// if let fd = try SocketActivation.listeningUnixSocket(named: "varlink") {
///     // serve on fd
/// } else {
///     // bind --socket PATH
/// }
/// ```
///
/// - Important: With `unsetEnvironment: true` (the default), the `LISTEN_*` variables are removed so child
///   processes do not take the sockets for theirs; a second call then finds nothing. Ask once, at start-up.
public enum SocketActivation {
    // MARK: - Public Functions

    /// The listening `AF_UNIX` stream socket systemd passed under `name`, or `nil` when there is none.
    ///
    /// Returns `nil` when the process was not socket-activated, when `LISTEN_PID` names another process (the
    /// variables were inherited, not meant for this process), or when no passed descriptor carries `name`.
    ///
    /// - Parameters:
    ///   - name: The `FileDescriptorName=` of the socket, like `"varlink"`.
    ///   - unsetEnvironment: Whether to remove the `LISTEN_*` variables, so children do not inherit them.
    /// - Returns: The descriptor, marked close-on-exec, or `nil`.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/listenFDsFailed`` when the variables are malformed, or
    ///   ``SystemdError/Code/notAListeningUnixSocket`` when the named descriptor is something else.
    public static func listeningUnixSocket(
        named name: String,
        unsetEnvironment: Bool = true
    ) throws(SystemdError) -> Int32? {
        let inherited = try inheritedDescriptors(unsetEnvironment: unsetEnvironment)
        guard let match = inherited.first(where: { $0.name == name }) else { return nil }
        let check = sd_is_socket_unix(match.fileDescriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0)
        guard check > 0 else {
            throw SystemdError(
                code: .notAListeningUnixSocket,
                message:
                    "inherited descriptor \(match.fileDescriptor) named \(name.debugDescription) is not a listening "
                    + "AF_UNIX stream socket; check ListenStream= in the .socket unit",
                systemErrorNumber: check < 0 ? -check : Int32?.none
            )
        }
        return match.fileDescriptor
    }

    /// Every descriptor systemd passed to this process, with its name.
    ///
    /// Descriptors without a name in `LISTEN_FDNAMES` are called `"unknown"`, as systemd does.
    ///
    /// - Parameter unsetEnvironment: Whether to remove the `LISTEN_*` variables, so children do not inherit them.
    /// - Returns: The descriptors, in the order systemd passed them (from `SD_LISTEN_FDS_START`, 3); empty when
    ///   the process was not socket-activated or `LISTEN_PID` names another process.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/listenFDsFailed`` when the variables are malformed.
    public static func inheritedDescriptors(
        unsetEnvironment: Bool = true
    ) throws(SystemdError) -> [InheritedDescriptor] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(unsetEnvironment ? 1 : 0, &names)
        defer { freeNames(names) }
        guard count >= 0 else {
            throw SystemdError(
                code: .listenFDsFailed,
                message: "LISTEN_FDS or LISTEN_FDNAMES is malformed",
                systemErrorNumber: -count
            )
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return InheritedDescriptor(name: name, fileDescriptor: SD_LISTEN_FDS_START + index)
        }
    }
}

// MARK: - InheritedDescriptor

/// A descriptor systemd passed to this process, and the name its unit gave it.
public struct InheritedDescriptor: Sendable, Hashable {
    /// The name from `LISTEN_FDNAMES` (`FileDescriptorName=` in the unit).
    public var name: String
    /// The descriptor number.
    public var fileDescriptor: Int32

    /// Creates a description of an inherited descriptor.
    ///
    /// - Parameters:
    ///   - name: The name from `LISTEN_FDNAMES`.
    ///   - fileDescriptor: The descriptor number.
    public init(name: String, fileDescriptor: Int32) {
        self.name = name
        self.fileDescriptor = fileDescriptor
    }
}

// MARK: - Private Functions

extension SocketActivation {
    /// Frees the `NULL`-terminated array `sd_listen_fds_with_names` allocated, and each string in it.
    private static func freeNames(_ names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard let names else { return }
        var index = 0
        while let name = names[index] {
            free(name)
            index += 1
        }
        free(names)
    }
}
