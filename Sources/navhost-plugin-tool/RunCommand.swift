import ArgumentParser
import Glibc
import NavHostPluginHost
import NavHostSocketPath
import NavHostStorage

// MARK: - run

extension NavHostPluginTool {
    /// Runs a navhostd of the author's own on a plugins folder, for trying a plugin without a daemon installed or
    /// without touching the one that serves.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Runs a navhostd of your own on a plugins folder, with its own socket and state.",
            discussion: """
                For trying a plugin as you build it (make run in a package navhost-plugin-tool new made): the \
                daemon loads the plugins folder, keeps its sessions and the plugins' stores in --run-dir/state, \
                listens on --run-dir/navhostd.sock, and opens session main at --root, by default the first route \
                without parameters of the plugin (the folder's only one, or --plugin). It watches the folder: a make \
                in another terminal stages a new build, which it reloads by itself, the screens staying with their \
                restorable state. \
                It reads no configuration of the machine's (/etc/navhost), only --run-dir/navhostd.conf, made empty \
                when missing, and the navhostd.conf.d/*.conf beside it (navhostd.conf(5)); arguments after -- go to \
                navhostd as they are. The daemon replaces this process: Ctrl-C or SIGTERM stops it, exit status 0. \
                navctl reaches it with NAVHOST_SOCKET=<the socket> or --socket. A daemon already answering on the \
                socket is not started again.
                """
        )

        @Argument(help: "The plugins folder, like .build/debug/plugins.")
        var directory = ".build/debug/plugins"

        @Option(help: "The plugin whose first route session main starts at, when the folder holds several.")
        var plugin: String?

        @Option(help: "The route session main starts at; by default the plugin's first route without parameters.")
        var root: String?

        @Option(help: "The navhostd to run; by default the one beside this program, else the first on PATH.")
        var navhostd: String?

        @Option(help: "The folder for the daemon's socket, state and configuration.")
        var runDir = ".build/navhost-run"

        @Option(help: "The socket to listen on; by default <run-dir>/navhostd.sock.")
        var socket: String?

        @Argument(parsing: .postTerminator, help: "Options for navhostd, after --, like -- --log-level debug.")
        var daemonOptions: [String] = []

        func run() throws {
            do {
                try start()
            } catch let refusal as RunRefusal {
                printToStandardError("Error: \(refusal.reason)")
                throw ExitCode.failure
            }
        }

        /// Prepares the run folder and replaces this process with the daemon; returns only by throwing.
        private func start() throws {
            try refuseIfNoPluginsFolder(directory)
            let rootRoute = try root ?? firstRoute()
            let program = try daemonProgram()
            let runFolder = absolute(runDir)
            let socketPath = socket.map(absolute) ?? "\(runFolder)/navhostd.sock"
            // navhostd refuses a path too long as well, but after the banner below.
            if let problem = SocketPathLength.problem(with: socketPath) {
                throw RunRefusal("\(problem): give a shorter one with --socket (make run SOCKET=…)")
            }
            // navhostd would refuse it too (the socket is served, the state folder locked), after the banner below.
            if Self.isAnswering(socketPath) {
                throw RunRefusal(
                    "a daemon already answers on \(socketPath): stop it first, or give another --run-dir or --socket"
                )
            }
            let configuration = "\(runFolder)/navhostd.conf"
            do {
                try FileIO.makeDirectories("\(runFolder)/state")
                if FileIO.kind(of: configuration) == nil { try FileIO.writeAtomically([UInt8](), to: configuration) }
            } catch {
                throw RunRefusal("cannot prepare \(runFolder): \(error)")
            }
            let arguments =
                [
                    program, "--config", configuration, "--plugins", absolute(directory),
                    "--state-dir", "\(runFolder)/state", "--socket", socketPath, "--session", "main=\(rootRoute)",
                ] + daemonOptions
            // The navctl beside the daemon (a checkout's build folder, an installation's bin), else the one on PATH:
            // an SDK installed alone brings none.
            let besideDaemon = "\(FileIO.parentDirectory(of: program))/navctl"
            let navctl = program.hasPrefix("/") && access(besideDaemon, X_OK) == 0 ? besideDaemon : "navctl"
            printToStandardError(
                """
                navhost-plugin-tool run: \(program), session main at \(rootRoute), plugins from \(directory)
                  in another terminal: export NAVHOST_SOCKET=\(socketPath); \(navctl) stack
                  make there stages a new build, which the daemon reloads; Ctrl-C stops it
                """
            )
            try exec(arguments)
        }

        /// The first route of the plugin ``plugin`` names, or of the folder's only plugin.
        private func firstRoute() throws -> String {
            let candidates: [PluginDirectory.Candidate]
            do {
                candidates = try PluginDirectory.candidates(in: directory)
            } catch {
                throw RunRefusal("cannot read \(directory): \(error)")
            }
            var manifests: [PluginManifest] = []
            for candidate in candidates {
                switch candidate.manifest {
                case .success(let manifest): manifests.append(manifest)
                case .failure(let reason) where plugin == nil || candidate.folderName == plugin:
                    throw RunRefusal("\(candidate.directory) cannot be run: \(reason)")
                case .failure: continue
                }
            }
            let chosen: PluginManifest
            if let plugin {
                guard let named = manifests.first(where: { $0.name == plugin }) else {
                    throw RunRefusal("\(directory) holds no staged plugin \(plugin): run make first")
                }
                chosen = named
            } else {
                guard let only = manifests.first else {
                    throw RunRefusal("\(directory) holds no staged plugin: run make first")
                }
                guard manifests.count == 1 else {
                    let names = manifests.map(\.name).joined(separator: ", ")
                    throw RunRefusal(
                        "\(directory) holds several plugins (\(names)): name the one to start at with --plugin, "
                            + "or a route with --root"
                    )
                }
                chosen = only
            }
            // A session's root is opened without parameters: a route that needs some cannot be one.
            guard let route = chosen.routes.first(where: { $0.parameters.isEmpty })?.route else {
                throw RunRefusal(
                    "\(chosen.name) lists no route without parameters to start session main at: give one with --root"
                )
            }
            return route
        }

        /// ``navhostd``, else the navhostd installed beside this program (an installation's library folder, or a
        /// checkout's build folder), else the first on `PATH`.
        /// ``navhostd`` (a name without a slash is looked for on `PATH`), else the navhostd installed beside this
        /// program (an installation's library folder, or a checkout's build folder), else the first on `PATH`.
        private func daemonProgram() throws -> String {
            if let navhostd {
                let found = navhostd.contains("/") ? (Self.isProgram(navhostd) ? navhostd : nil) : Self.onPath(navhostd)
                guard let found else { throw RunRefusal("\(navhostd) is no program to run") }
                return absolute(found)
            }
            if let own = FileIO.realPath("/proc/self/exe") {
                let beside = "\(FileIO.parentDirectory(of: own))/navhostd"
                if Self.isProgram(beside) { return beside }
            }
            if let found = Self.onPath("navhostd") { return absolute(found) }
            throw RunRefusal(
                "no navhostd beside this program or on PATH (an SDK installed alone has none): install the daemon "
                    + "(make install in a NavHost checkout, or the navhost package), or name one with --navhostd "
                    + "(make run NAVHOSTD=$HOME/src/navhost/.build/debug/navhostd)"
            )
        }

        /// The first program `name` in a folder of `PATH`.
        private static func onPath(_ name: String) -> String? {
            let path = getenv("PATH").map { String(cString: $0) } ?? ""
            return path.split(separator: ":").lazy.map { "\($0)/\(name)" }.first(where: isProgram)
        }

        /// Whether `path` is a file this process may run (not a folder of that name).
        private static func isProgram(_ path: String) -> Bool {
            FileIO.kind(of: path) == .regularFile && access(path, X_OK) == 0
        }

        /// Whether a server accepts connections on the Unix socket `path`. navhostd's own check at start-up
        /// (NavHostVarlink's `VarlinkServer.checkSocketIsFree`) stays the authority; this one, in a tool that links
        /// no NIO, only keeps the banner from announcing a daemon that will not start.
        private static func isAnswering(_ path: String) -> Bool {
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            return status == 0
        }

        /// `path`, made absolute against the current folder in the form the daemon compares folders by
        /// (``AbsolutePath``); as given when the current folder cannot be read.
        private func absolute(_ path: String) -> String {
            AbsolutePath.resolving(path) ?? path
        }

        /// Why the daemon cannot be run: said as `Error: …`, exit status 1 (not a usage error: the command line was
        /// fine).
        private struct RunRefusal: Error {
            var reason: String
            init(_ reason: String) { self.reason = reason }
        }

        /// Replaces this process with `arguments[0]`, run with `arguments`.
        private func exec(_ arguments: [String]) throws -> Never {
            // What this process wrote goes out before the daemon takes its place.
            fflush(nil)
            var pointers = arguments.map { strdup($0) }
            pointers.append(nil)
            execv(arguments[0], pointers)
            let reason = String(cString: strerror(errno))
            throw RunRefusal("cannot run \(arguments[0]): \(reason)")
        }
    }
}
