import Dispatch
import Glibc
import Logging
import NavHostKit
import NavHostSystemd
import Synchronization

/// A stand-in for navhostd under a real systemd, with navhostd's command line
/// (`serve --socket PATH --plugins DIR --state-dir DIR`): it does what the service's hardening must allow.
///
/// Logs through ``SystemdLogging``; takes the socket named `varlink` (or binds `--socket`); `dlopen`s every plugin
/// in `--plugins` the daemon's way and asks it for its module; writes `state.txt` in `--state-dir`; notifies READY
/// and STATUS; runs the ``Watchdog``; reloads on SIGHUP, stops on SIGTERM, wedges its MainActor on SIGUSR1. Each
/// client gets one line: its credentials as the daemon sees them, whether it may control, and the plugins.
@MainActor
enum ServeProbe {
    private static let notifier = SystemdNotifier()
    private static var logger = Logger(label: "navhost.probe")
    private static var pluginDirectory = ""
    private static var stateDirectory = ""
    private static var plugins: [String] = []
    private static var reloads = 0
    /// The loaded plugins' names, for the client thread, which must not need the MainActor.
    nonisolated private static let servedPlugins = Mutex<String>("")

    static func start(arguments: [String]) {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let socketPath = option("--socket"), let plugins = option("--plugins"), let state = option("--state-dir")
        else {
            Output.line("usage: NotifyProbe serve --socket PATH --plugins DIR --state-dir DIR")
            exit(64)
        }
        pluginDirectory = plugins
        stateDirectory = state
        LoggingSystem.bootstrap(SystemdLogging.handlerFactory(threshold: LogThreshold(.debug)), metadataProvider: nil)
        logger = Logger(label: "navhost.probe")

        let listening: Int32
        do {
            if let activated = try SocketActivation.listeningUnixSocket(named: "varlink") {
                logger.info("Using the socket systemd passed", metadata: ["fd": "\(activated)"])
                listening = activated
            } else {
                listening = try bindSocket(at: socketPath)
                logger.info("Listening", metadata: ["path": "\(socketPath)"])
            }
        } catch {
            logger.critical("No socket to serve on", metadata: ["reason": "\(error)"])
            exit(1)
        }

        loadPlugins()
        writeState()
        SignalWaiter.start([SIGHUP: { reload() }, SIGTERM: { stop() }, SIGUSR1: { wedge() }]) {
            notify(.ready, .status(statusText()))
        }

        if let timeout = try? Watchdog.configuredTimeout() {
            logger.info("Watchdog on", metadata: ["timeout": "\(timeout)"])
            Task.detached { await Watchdog(timeout: timeout).run() }
        }
        DispatchQueue.global().async { serve(listening) }
    }

    // MARK: - Lifecycle

    private static func reload() {
        notify(.reloading, .status("Reloading plugins"))
        logger.notice("Reloading")
        loadPlugins()
        reloads += 1
        writeState()
        notify(.ready, .status(statusText()))
    }

    private static func stop() {
        notify(.stopping, .status("Shutting down"))
        logger.notice("Stopping")
        exit(0)
    }

    private static func wedge() {
        logger.warning("Wedging the MainActor on request")
        notify(.status("wedged"))
        while true { pause() }
    }

    private static func statusText() -> String {
        "Serving \(plugins.count) plugin(s) [\(plugins.joined(separator: ", "))], \(reloads) reload(s)"
    }

    // MARK: - Plugins and state

    private static func loadPlugins() {
        plugins = []
        guard let directory = opendir(pluginDirectory) else {
            logger.error(
                "Cannot read the plugin folder",
                metadata: ["path": "\(pluginDirectory)", "errno": "\(errno)"]
            )
            return
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".so") { names.append(name) }
        }
        for name in names.sorted() {
            let path = "\(pluginDirectory)/\(name)"
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                let reason = dlerror().map { String(cString: $0) } ?? "unknown"
                logger.error("Plugin failed to load", metadata: ["navhost.plugin": "\(name)", "reason": "\(reason)"])
                continue
            }
            typealias Entry = @convention(c) () -> UnsafeMutableRawPointer
            guard let symbol = dlsym(handle, FeatureExport.entrySymbol),
                let module = FeatureExport.module(from: unsafeBitCast(symbol, to: Entry.self)())
            else {
                logger.error("Plugin has no feature module", metadata: ["navhost.plugin": "\(name)"])
                continue
            }
            plugins.append(module.name)
            logger.info(
                "Plugin loaded\nfrom \(path)",
                metadata: ["navhost.plugin": "\(module.name)", "navhost.route": "\(module.screens.first?.route ?? "")"]
            )
        }
    }

    private static func writeState() {
        servedPlugins.withLock { $0 = plugins.joined(separator: ",") }
        let text = Array("reloads=\(reloads) plugins=\(plugins.joined(separator: ","))\n".utf8)
        let temporary = "\(stateDirectory)/state.txt.new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            logger.error("Cannot write state", metadata: ["path": "\(temporary)", "errno": "\(errno)"])
            return
        }
        _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        rename(temporary, "\(stateDirectory)/state.txt")
    }

    // MARK: - Socket

    private static func bindSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            throw SystemdError(code: .listenFDsFailed, message: "cannot listen on \(path)", systemErrorNumber: errno)
        }
        return descriptor
    }

    /// Answers each client with one line, off the MainActor (a wedged MainActor keeps answering: only pings stop).
    nonisolated private static func serve(_ listening: Int32) {
        let navhostGroup = getgrnam("navhost").map { $0.pointee.gr_gid }
        while true {
            let connection = accept(listening, nil, nil)
            if connection < 0 { continue }
            var credentials = [Int32](repeating: 0, count: 3)  // struct ucred: pid, uid, gid
            var length = socklen_t(MemoryLayout<Int32>.size * 3)
            getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
            var groups = [UInt32](repeating: 0, count: 64)
            var groupsLength = socklen_t(MemoryLayout<UInt32>.size * groups.count)
            let soPeerGroups: Int32 = 59  // SO_PEERGROUPS, from <asm-generic/socket.h>
            if getsockopt(connection, SOL_SOCKET, soPeerGroups, &groups, &groupsLength) != 0 { groupsLength = 0 }
            let peerGroups = groups.prefix(Int(groupsLength) / MemoryLayout<UInt32>.size)
            let mayControl =
                credentials[1] == 0
                || navhostGroup.map { UInt32(credentials[2]) == $0 || peerGroups.contains($0) } ?? false
            let names = servedPlugins.withLock { $0 }
            // What the sandbox refuses: W+X memory (MemoryDenyWriteExecute=), setpriority (SystemCallFilter=~@resources).
            let niceness = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 1) == 0 ? "allowed" : "refused"
            let peer = "pid=\(credentials[0]) uid=\(credentials[1]) gid=\(credentials[2]) control=\(mayControl)"
            let sandbox = "wx=\(writableExecutableMemory()) setpriority=\(niceness)"
            let line = Array("\(peer) plugins=\(names) \(sandbox)\n".utf8)
            _ = line.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
    }

    /// Whether this process may map memory writable and executable at once (MemoryDenyWriteExecute= refuses it).
    nonisolated private static func writableExecutableMemory() -> String {
        let mapping = mmap(nil, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapping, mapping != MAP_FAILED else { return "refused" }
        munmap(mapping, 4096)
        return "allowed"
    }

    private static func notify(_ messages: SystemdNotifier.Message...) {
        _ = try? notifier.notify(messages)
    }
}
