import Foundation
import IntegrationHarness
import NavHostClient
import Testing

/// `navhost-plugin-tool run`: a navhostd of the feature author's own on a plugins folder (the scaffold's `make run`).
@Suite("navhost-plugin-tool run", .timeLimit(.minutes(2)))
struct PluginToolRunTests {
    @Test("It runs the navhostd beside it on the folder, session main at the plugin's first route; SIGTERM stops it")
    func runsADaemonOfItsOwn() async throws {
        let plugins = try TestPlugins.copies(of: ["Products"])
        let work = (plugins as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tool = try SpawnedProcess(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["run", plugins, "--run-dir", "\(work)/run", "--", "--log-level", "debug"],
            output: .file("\(work)/run.log")
        )
        let socket = "\(work)/run/navhostd.sock"
        let client = try await Self.connect(to: socket, while: tool, log: "\(work)/run.log")
        let snapshot = try await client.stack()
        #expect(snapshot.session == "main")
        #expect(snapshot.stack.map(\.route.id) == ["products.list"])
        await client.close()

        try await Self.stop(tool, log: "\(work)/run.log")
        let log = try String(contentsOfFile: "\(work)/run.log", encoding: .utf8)
        #expect(log.contains("session main at products.list, plugins from \(plugins)"), "\(log)")
        #expect(log.contains("export NAVHOST_SOCKET=\(socket)"), "\(log)")
        // The daemon read its own configuration, made empty, and took the options after --.
        #expect(log.contains("navhost.config.files=\(work)/run/navhostd.conf"), "\(log)")
        #expect(log.contains("<7>"), "the options after -- did not reach navhostd (no debug line)")
        #expect(FileManager.default.fileExists(atPath: "\(work)/run/state/sessions"))
    }

    @Test("--plugin names the plugin whose first route session main starts at, --root the route itself")
    func pluginAndRoot() async throws {
        let plugins = try TestPlugins.copies(of: ["Products", "Settings"])
        let work = (plugins as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: work) }
        let cases = [(["--plugin", "Settings"], "settings.main"), (["--root", "products.list"], "products.list")]
        for (options, root) in cases {
            let run = "\(work)/run-\(options[0].dropFirst(2))"
            let tool = try SpawnedProcess(
                TestPaths.builtExecutable("navhost-plugin-tool"),
                ["run", plugins, "--run-dir", run] + options,
                output: .file("\(run).log")
            )
            let client = try await Self.connect(to: "\(run)/navhostd.sock", while: tool, log: "\(run).log")
            #expect(try await client.stack().stack.map(\.route.id) == [root])
            await client.close()
            try await Self.stop(tool, log: "\(run).log")
            let log = try String(contentsOfFile: "\(run).log", encoding: .utf8)
            #expect(log.contains("session main at \(root), plugins from \(plugins)"), "\(log)")
        }
    }

    @Test("Relative paths are taken from the folder it runs in; a second run on the same socket is refused")
    func relativePathsAndASecondRun() async throws {
        let plugins = try TestPlugins.copies(of: ["Settings"])
        let work = (plugins as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tool = try SpawnedProcess(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["run", "plugins", "--run-dir", "run"],
            output: .file("\(work)/run.log"),
            workingDirectory: work
        )
        let client = try await Self.connect(to: "\(work)/run/navhostd.sock", while: tool, log: "\(work)/run.log")
        #expect(try await client.stack().stack.map(\.route.id) == ["settings.main"])
        await client.close()
        #expect(FileManager.default.fileExists(atPath: "\(work)/run/state/sessions"))

        let second = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["run", "plugins", "--run-dir", "run"],
            workingDirectory: work
        )
        #expect(second.status == 1)
        #expect(
            second.errors.contains("Error: a daemon already answers on \(work)/run/navhostd.sock"),
            "\(second.errors)"
        )
        #expect(!second.errors.contains("navhost-plugin-tool run:"), "the banner of a daemon that does not start")
        try await Self.stop(tool, log: "\(work)/run.log")
    }

    @Test(
        "What it cannot run on is refused with exit status 1, saying why, and no daemon starts",
        arguments: [
            (["Products", "Settings"], [String](), "holds several plugins (Products, Settings): name the one"),
            (["Products"], ["--plugin", "Orders"], "holds no staged plugin Orders: run make first"),
            (["Products"], ["--navhostd", "/nonexistent/navhostd"], "/nonexistent/navhostd is no program to run"),
            ([], [], "holds no staged plugin: run make first"),
            (["UserProfile"], [], "UserProfile lists no route without parameters to start session main at"),
            (["Settings"], ["--navhostd", "/"], "/ is no program to run"),
        ]
    )
    func refusals(names: [String], options: [String], reason: String) async throws {
        let plugins = try TestPlugins.copies(of: names)
        let work = (plugins as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: work) }
        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["run", plugins, "--run-dir", "\(work)/run"] + options
        )
        #expect(run.status == 1)
        #expect(run.errors.contains("Error: ") && run.errors.contains(reason), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: "\(work)/run"))
    }

    @Test("A socket path longer than a Unix socket takes is refused before the daemon starts, naming --socket")
    func socketPathTooLong() async throws {
        let plugins = try TestPlugins.copies(of: ["Settings"])
        let work = (plugins as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: work) }
        let socket = "\(work)/" + String(repeating: "s", count: 110) + ".sock"
        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["run", plugins, "--run-dir", "\(work)/run", "--socket", socket]
        )
        #expect(run.status == 1)
        #expect(
            run.errors.contains(
                "\(socket) is \(socket.utf8.count) bytes long; a Unix socket path is 107 at most: give a shorter one "
                    + "with --socket"
            ),
            "\(run.errors)"
        )
    }

    /// Stops the daemon `tool` became with SIGTERM, once it has said it is ready (it handles the signal from then
    /// on), and expects it to exit 0.
    private static func stop(_ tool: SpawnedProcess, log: String) async throws {
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("Ready") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        tool.send(SIGTERM)
        #expect(await tool.waitForExit() == 0)
    }

    /// A client of the daemon `tool` became, once its socket answers; fails, with the log, if `tool` ends first.
    private static func connect(to socket: String, while tool: SpawnedProcess, log: String) async throws
        -> NavHostClient
    {
        for _ in 0..<300 {
            if let client = try? await NavHostClient.connect(socketPath: socket) { return client }
            guard tool.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        Issue.record("no daemon answered on \(socket): \(text)")
        throw CancellationError()
    }
}
