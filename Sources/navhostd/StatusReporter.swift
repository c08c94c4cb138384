import NavHostVarlink

/// Builds the `STATUS=` line from the core and the server.
struct StatusReporter: Sendable {
    let core: DaemonCore
    let server: VarlinkServer

    func line() async -> String {
        await core.statusLine(clients: server.connectionCount)
    }
}
