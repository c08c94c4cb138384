import Glibc
import Logging

/// Makes the process's file descriptor limit cover the connections the daemon is configured to serve.
///
/// Every client holds one descriptor. When the limit runs out, `accept` fails with `EMFILE` and new clients wait in
/// the listening socket's backlog instead of being refused cleanly; so the soft limit is raised (up to the hard
/// limit, which needs no privilege) to cover the configured connections, and when even the hard limit is too low,
/// the connection limit is lowered to what fits, with a warning.
enum FileDescriptorLimit {
    /// Descriptors kept free beyond the clients': plugins, state files, the journal, the event loops' own.
    static let headroom = 64

    /// Raises the soft `RLIMIT_NOFILE` so that `connections` clients fit beside what is open now.
    ///
    /// - Returns: How many connections the limit allows: `connections`, or fewer when the hard limit is too low.
    static func admit(connections: Int, logger: Logger) -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        let reserved = openDescriptors() + headroom
        let needed = rlim_t(connections + reserved)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return connections }
        if limit.rlim_cur < needed, limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(resource, &raised) == 0 {
                logger.info(
                    "Raised the file descriptor limit to cover the connection limit",
                    metadata: ["navhost.limit.from": "\(limit.rlim_cur)", "navhost.limit.to": "\(raised.rlim_cur)"]
                )
                limit = raised
            }
        }
        guard limit.rlim_cur < needed else { return connections }
        let fitting = max(Int(limit.rlim_cur) - reserved, 1)
        logger.warning(
            "The file descriptor limit cannot cover --max-connections: serving fewer clients",
            metadata: [
                "navhost.limit.nofile": "\(limit.rlim_cur)", "navhost.limit.hard": "\(limit.rlim_max)",
                "navhost.connections.configured": "\(connections)", "navhost.connections.allowed": "\(fitting)",
            ]
        )
        return fitting
    }

    /// How many descriptors the process has open.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 16 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }
}
