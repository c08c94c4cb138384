import Foundation
import Glibc
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// `navhostd.conf` with the real daemon: a file's sessions and access list are honoured, a drop-in overrides it, an
/// invalid file is refused naming its line and key, and SIGHUP puts a valid change in force without dropping a
/// client while an invalid one changes nothing.
@Suite("The daemon's configuration file")
struct DaemonConfigurationTests {
    /// A configuration folder of the test's own: `navhostd.conf` and `navhostd.conf.d/`.
    struct ConfigFolder {
        let path: String
        var file: String { "\(path)/navhostd.conf" }

        init(_ text: String) throws {
            path = try TestPaths.temporaryDirectory()
            try FileManager.default.createDirectory(
                atPath: "\(path)/navhostd.conf.d",
                withIntermediateDirectories: true
            )
            try write(text)
        }

        func write(_ text: String) throws {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }

        func dropIn(_ name: String, _ text: String) throws {
            try text.write(toFile: "\(path)/navhostd.conf.d/\(name)", atomically: true, encoding: .utf8)
        }

        func removeDropIn(_ name: String) throws {
            try FileManager.default.removeItem(atPath: "\(path)/navhostd.conf.d/\(name)")
        }

        /// `navhostd --config <this folder's file> --check-config`, with `options` after.
        func check(_ options: [String] = []) async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                TestPaths.builtExecutable("navhostd"),
                ["--config", file, "--check-config"] + options
            )
        }
    }

    /// Calls `method` as the user and group `uid`.
    func call(_ daemon: DaemonProcess, as uid: UInt32, _ method: String, _ parameters: String = "{}") async throws
        -> String
    {
        try await daemon.call(as: uid, uid, method, parameters)
    }

    @Test("A file's two sessions and its control users are honoured; a drop-in overrides a session of it")
    func fileAndDropIn() async throws {
        let config = try ConfigFolder(
            """
            # Two sessions and who may control.
            log-level: info
            sessions:
              main: home.main
              kiosk:
                root: products.list
                max-stack-depth: 2
            control:
              users: [4242]
            """
        )
        try config.dropIn("50-kiosk.conf", "sessions:\n  kiosk:\n    root: settings.main\n")
        let daemon = try await DaemonProcess.start(
            extraArguments: ["--config", config.file, "--socket-mode", "0666"]
        )
        let nav = try await NavigationClient.connect(to: daemon)

        #expect(try await nav.call("Sessions")["sessions"] == ["kiosk", "main"])
        #expect(try await nav.routes(session: "kiosk") == ["settings.main"], "the drop-in's root")
        let listed = try await call(daemon, as: 4242, "io.navhost.Navigation.Navigate", #"{"route":"settings.main"}"#)
        #expect(!listed.hasPrefix("error"), "user 4242 is listed: \(listed)")
        let other = try await call(daemon, as: 4343, "io.navhost.Navigation.Navigate", #"{"route":"settings.main"}"#)
        #expect(other.hasPrefix("error org.varlink.service.PermissionDenied"), "\(other)")
        #expect(
            daemon.log.contains("navhost.config.files=\"\(config.file) \(config.path)/navhostd.conf.d/50-kiosk.conf\"")
        )
        try await daemon.terminate()
    }

    /// An unknown key spelt close to one the daemon reads there names it (`rooot`, `log_level`), one far off or that
    /// the mapping has already does not.
    @Test(
        "An invalid file stops the daemon before it starts, naming the file, line and key",
        arguments: [
            ("limits:\n  max-connections: lots\n", ":2:20: limits.max-connections: expected a whole number"),
            (
                "sessions:\n  kiosk:\n    rooot: settings.main\n",
                ":3:5: sessions.kiosk.rooot: is not a setting navhostd knows (did you mean \"root\"?); under "
                    + "sessions.kiosk it reads root, parameters"
            ),
            ("log_level: info\n", ":1:1: log_level: is not a setting navhostd knows (did you mean \"log-level\"?)"),
            ("limits:\n  frobnicate: 3\n", ":2:3: limits.frobnicate: is not a setting navhostd knows; under limits"),
            (
                "sessions:\n  kiosk:\n    root: settings.main\n    roots: home.main\n",
                ":4:5: sessions.kiosk.roots: is not a setting navhostd knows; under sessions.kiosk"
            ),
            // A slip for a key the file has already names no farther key instead (not socket-mode).
            ("socket: /tmp/s\nsocke: /tmp/t\n", ":2:1: socke: is not a setting navhostd knows; at the top"),
            ("log-level: loud\n", ":1:12: log-level: \"loud\" is not a log level"),
            // Permission bits only: a set-ID or sticky bit, or a digit that is not octal, is no socket mode.
            ("socket-mode: \"1777\"\n", ":1:14: socket-mode: \"1777\" is not an octal mode like \"0660\" (quote it)"),
            ("socket-mode: \"0698\"\n", ":1:14: socket-mode: \"0698\" is not an octal mode like \"0660\" (quote it)"),
            (
                "socket: /run/\(String(repeating: "s", count: 110))\n",
                ":1:9: socket: /run/\(String(repeating: "s", count: 110)) is 115 bytes long; a Unix socket path is 107 "
                    + "at most"
            ),
            ("control:\n  groups: [no-such-group-here]\n", ":2:12: control.groups: no group"),
            ("sessions: [main\n", ":2:1: not YAML"),
            (
                (0..<24).map { "a\($0 + 1): &a\($0 + 1) [*a\($0), *a\($0)]" }.reduce("a0: &a0 x\n") { $0 + $1 + "\n" },
                ":2:5: not YAML: expands to more than 100000 values"
            ),
        ]
    )
    func invalidFileIsRefused(text: String, expected: String) async throws {
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        try config.dropIn("90-broken.conf", text)
        let directory = try TestPaths.temporaryDirectory()
        let started = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            ["--config", config.file, "--socket", "\(directory)/s.sock", "--state-dir", directory]
        )
        #expect(started.status == 78, "EX_CONFIG: \(started.errors)")
        #expect(
            started.errors.contains("\(config.path)/navhostd.conf.d/90-broken.conf\(expected)"),
            "\(started.errors)"
        )
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/s.sock"), "it never listened")

        let checked = try await config.check()
        #expect(checked.status == 78)
        #expect(checked.errors == started.errors)
    }

    @Test(
        "The example file installed as /etc/navhost/navhostd.conf is valid as shipped and with every setting uncommented"
    )
    func shippedExample() async throws {
        let example = try String(contentsOfFile: "\(TestPaths.packageRoot)/systemd/navhostd.conf", encoding: .utf8)
        let uncommented = example.split(separator: "\n", omittingEmptySubsequences: false).compactMap {
            line -> String? in
            if line.hasPrefix("#  ") { return "  " + line.dropFirst(3) }
            if let second = line.dropFirst().first, line.hasPrefix("#"), second.isLetter {
                return String(line.dropFirst())
            }
            return line.hasPrefix("#") ? nil : String(line)
        }
        #expect(uncommented.contains("    intent-timeout: 10s"), "the commented settings were found")
        for text in [example, uncommented.joined(separator: "\n")] {
            let config = try ConfigFolder(text)
            let checked = try await config.check()
            #expect(checked.status == 0, "\(checked.errors)\n\(text)")
        }
    }

    @Test("Limits that depend on each other are checked once the sources are layered, not one source at a time")
    func crossCheckedLimits() async throws {
        let config = try ConfigFolder("limits:\n  max-connections: 10000\n")
        try config.dropIn("10-reserve.conf", "limits:\n  reserved-connections: 5000\n")
        let valid = try await config.check()
        #expect(valid.status == 0, "\(valid.errors)")
        let invalid = try await config.check(["--reserved-connections", "10000"])
        #expect(invalid.status == 78)
        #expect(
            invalid.errors.contains(
                "the command line: limits.reserved-connections: must be less than max-connections (10000)"
            ),
            "\(invalid.errors)"
        )
        // The room for all clients' unfinished messages holds at least one message; a larger message alone raises
        // the default room with it.
        try config.dropIn("20-messages.conf", "limits:\n  max-message-size: 32M\n")
        let raised = try await config.check()
        #expect(raised.status == 0, "\(raised.errors)")
        let tooSmall = try await config.check(["--max-unfinished-total", "16M"])
        #expect(tooSmall.status == 78)
        #expect(
            tooSmall.errors.contains(
                "limits.max-unfinished-total: must be at least max-message-size (33554432), not 16777216"
            ),
            "\(tooSmall.errors)"
        )
    }

    @Test("--check-config says what the files and options amount to, options winning")
    func checkConfig() async throws {
        let config = try ConfigFolder(
            "sessions:\n  main: home.main\n  lobby:\n    root: settings.main\n    max-stack-depth: 3\n"
                + "limits:\n  max-connections: 100\n"
        )
        let checked = try await config.check(["--max-connections", "50", "--session", "kiosk=settings.main"])
        #expect(checked.status == 0, "\(checked.errors)")
        #expect(checked.output.contains("navhostd: the configuration is valid"))
        #expect(
            checked.output.contains("sessions: main=home.main lobby=settings.main kiosk=settings.main"),
            "\(checked.output)"
        )
        #expect(checked.output.contains("session lobby: max-stack-depth 3, intent-timeout"), "\(checked.output)")
        #expect(checked.output.contains("max-connections 50,"), "\(checked.output)")
        // Before: "control groups: (none)" though the navhost group may control, no word of a session's own
        // limits, and "mode 660".
        #expect(checked.output.contains("control groups: navhost (when the group exists)"), "\(checked.output)")
        #expect(checked.output.contains("control users: 0 (root)"), "\(checked.output)")
        #expect(checked.output.contains("(mode 0660 when navhostd binds it)"), "\(checked.output)")
        #expect(checked.output.contains("intent-timeout 30.0 seconds,"), "\(checked.output)")
    }

    @Test("--control-uid takes a user's name as control.users does, and refuses a name no user has")
    func controlUserByName() async throws {
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        let checked = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            ["--config", "/dev/null", "--check-config", "--control-uid", "nobody", "--control-uid", "4242"]
        )
        #expect(checked.status == 0, "\(checked.errors)")
        #expect(checked.output.contains(", 4242, \(nobody)\n"), "\(checked.output)")
        let unknown = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            ["--config", "/dev/null", "--check-config", "--control-uid", "no-such-user-here"]
        )
        #expect(unknown.status == 64, "a usage error: \(unknown.errors)")
        #expect(unknown.errors.contains(#"--control-uid: no user "no-such-user-here""#), "\(unknown.errors)")
    }

    @Test("Relative paths on the command line are taken against the directory navhostd starts in")
    func relativePathsOnTheCommandLine() async throws {
        let directory = try TestPaths.temporaryDirectory()
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/etc", withDestinationPath: config.path)
        let checked = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            [
                "--check-config", "--config", "etc/navhostd.conf", "--socket", "run//io.navhost", "--plugins",
                "./lib/../plugins", "--state-dir", "state",
            ],
            workingDirectory: directory
        )
        #expect(checked.status == 0, "\(checked.errors)")
        for line in [
            "files: \(directory)/etc/navhostd.conf", "socket: \(directory)/run/io.navhost (mode",
            "plugins: \(directory)/plugins\n", "state-dir: \(directory)/state\n",
        ] {
            #expect(checked.output.contains(line), "\(line): \(checked.output)")
        }
    }

    @Test("--socket-mode takes permission bits in octal, and nothing else", arguments: ["1777", "0698", "660x", "-1"])
    func socketModeOnTheCommandLine(mode: String) async throws {
        let directory = try TestPaths.temporaryDirectory()
        let started = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            [
                "--config", "/dev/null", "--socket", "\(directory)/s.sock", "--state-dir", directory,
                "--socket-mode=\(mode)",
            ]
        )
        #expect(started.status == 64, "EX_USAGE: \(started.errors)")
        #expect(started.errors.contains("--socket-mode takes an octal mode like 0660, not \"\(mode)\""))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/s.sock"), "it never listened")
    }

    @Test("A socket's folder anyone may write stops navhostd before it listens")
    func unsafeSocketFolder() async throws {
        let directory = try TestPaths.temporaryDirectory()
        let folder = "\(directory)/sockets"
        #expect(mkdir(folder, 0o755) == 0 && chmod(folder, 0o777) == 0)
        let arguments = [
            "--config", "/dev/null", "--socket", "\(folder)/s.sock", "--state-dir", "\(directory)/state",
            "--plugins", DaemonProcess.examplePlugins,
        ]
        let refused = try await ChildProcess.run(TestPaths.builtExecutable("navhostd"), arguments)
        #expect(refused.status != 0)
        #expect(
            refused.errors.contains("the socket's folder is not safe: \(folder) may be written by anyone (mode 0777)"),
            "\(refused.errors)"
        )
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/s.sock"), "it never listened")
    }

    @Test("The test hook --test-state-write-delay is refused without --enable-test-hooks, and below zero")
    func stateWriteDelayIsATestHook() async throws {
        let directory = try TestPaths.temporaryDirectory()
        let common = [
            "--config", "/dev/null", "--socket", TestPaths.socketPath(), "--plugins", DaemonProcess.examplePlugins,
            "--state-dir", "\(directory)/state",
        ]
        for extra in [["--test-state-write-delay", "50"], ["--enable-test-hooks", "--test-state-write-delay=-1"]] {
            let started = try await ChildProcess.run(TestPaths.builtExecutable("navhostd"), common + extra)
            #expect(started.status == 64, "EX_USAGE for \(extra): \(started.errors)")
            let refusal = "--test-state-write-delay is a test hook: milliseconds, with --enable-test-hooks"
            #expect(started.errors.contains(refusal), "\(extra): \(started.errors)")
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/state"), "nothing was loaded or written")
        }
    }

    @Test("A --socket too long once resolved stops navhostd before it loads anything, naming the path and the limit")
    func socketPathTooLong() async throws {
        let directory = try TestPaths.temporaryDirectory()
        // Short as written; too long once taken against the directory navhostd starts in, as it would be bound.
        let deep = "\(directory)/\(String(repeating: "d", count: 100))"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let resolved = "\(deep)/io.navhost"
        let started = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            [
                "--config", "/dev/null", "--socket", "io.navhost", "--plugins", DaemonProcess.examplePlugins,
                "--state-dir", "\(directory)/state",
            ],
            workingDirectory: deep
        )
        #expect(started.status == 64, "EX_USAGE: \(started.errors)")
        #expect(
            started.errors.contains(
                "--socket \(resolved) is \(resolved.utf8.count) bytes long; a Unix socket path is 107 at most"
            ),
            "\(started.errors)"
        )
        // Before: the state folder locked and the plugins loaded, then the bind failed.
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/state"), "nothing was loaded or written")
        #expect(!started.errors.contains("Loaded"), "\(started.errors)")
    }

    @Test("A reload that only declares a session says it opened it, not that limits changed")
    func reloadDeclaringASession() async throws {
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        let daemon = try await DaemonProcess.start(extraArguments: ["--config", config.file])
        try config.dropIn("60-kiosk.conf", "sessions:\n  kiosk: settings.main\n")
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        let line = daemon.log.split(separator: "\n").first { $0.contains("session kiosk opened") }
        #expect(line != nil, "\(daemon.log)")
        #expect(line?.contains("session limits") == false, "\(line ?? "")")
        try await daemon.terminate()
    }

    @Test(
        "A configured session whose root is refused is logged once, and a reload that mends its root says it opened it"
    )
    func reloadMendingASessionRoot() async throws {
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        let daemon = try await DaemonProcess.start(extraArguments: ["--config", config.file])
        try config.dropIn("60-lobby.conf", "sessions:\n  lobby: profile.user\n")
        var count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        let failures = daemon.log.split(separator: "\n").filter { $0.contains("Cannot open a configured session") }
        // Before, two lines for one reload (the reload and the registry each tried), saying the route was missing.
        #expect(failures.count == 1 && failures.first?.contains("userID") == true, "\(failures)")
        let declared = daemon.log.split(separator: "\n").filter { $0.contains("Reloaded the configuration") }
        #expect(declared.last?.contains("session lobby declared, its root not open yet") == true, "\(declared)")

        try config.dropIn(
            "60-lobby.conf",
            "sessions:\n  lobby:\n    root: profile.user\n    parameters: {userID: u2}\n"
        )
        count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.routes(session: "lobby") == ["profile.user"])
        // Before, "changed=nothing", and a warning that the root would change at the next start.
        let reloaded = daemon.log.split(separator: "\n").filter { $0.contains("Reloaded the configuration") }
        #expect(reloaded.last?.contains("session lobby opened") == true, "\(reloaded)")
        #expect(!daemon.log.contains("sessions.lobby.root"), "\(daemon.log)")
        try await daemon.terminate()
    }

    @Test("A reload that takes out a session that was open and one whose root never opened says only the first closed")
    func reloadClosingOnlyAnOpenSession() async throws {
        // lobby's root, profile.user, is refused without its userID: the name is declared, no session opens.
        let config = try ConfigFolder("sessions:\n  main: home.main\n  kiosk: settings.main\n  lobby: profile.user\n")
        let daemon = try await DaemonProcess.start(extraArguments: ["--config", config.file])
        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.call("Sessions")["sessions"] == ["kiosk", "main"])

        try config.write("sessions:\n  main: home.main\n")
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        #expect(try await nav.call("Sessions")["sessions"] == ["main"])
        let reloaded = daemon.log.split(separator: "\n").filter { $0.contains("Reloaded the configuration") }
        #expect(reloaded.last?.contains("session kiosk closed") == true, "\(reloaded)")
        // Before 94a884c, "session lobby closed" too: a name with no session was logged as closed.
        #expect(!daemon.log.contains("session lobby closed"), "\(reloaded)")
        try await daemon.terminate()
    }

    @Test("A configured session whose root's plugin is missing opens once the plugin is dropped into the folder")
    func sessionOpensWhenItsPluginLoads() async throws {
        let plugins = try await TestPlugins.directory()
        try FileManager.default.removeItem(atPath: "\(plugins)/Products")
        let config = try ConfigFolder("sessions:\n  main: home.main\n  lobby: products.list\n")
        let daemon = try await DaemonProcess.start(plugins: plugins, extraArguments: ["--config", config.file])
        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.call("Sessions")["sessions"] == ["main"])

        try TestPlugins.linkExample("Products", in: plugins)
        // Before, only a reload (SIGHUP) opened it, though the docs said the plugin's arrival would.
        #expect(try await pollUntil { try await nav.call("Sessions")["sessions"] == ["lobby", "main"] })
        #expect(try await nav.routes(session: "lobby") == ["products.list"])
        let failures = daemon.log.split(separator: "\n").filter { $0.contains("Cannot open a configured session") }
        #expect(failures.count == 1, "logged once, not at each plugin that loaded: \(failures)")
        try await daemon.terminate()
    }

    @Test("A reload that declares a session and finds its plugin just dropped in opens it, without an error first")
    func reloadWithItsPlugin() async throws {
        let plugins = try await TestPlugins.directory()
        try FileManager.default.removeItem(atPath: "\(plugins)/Products")
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        let daemon = try await DaemonProcess.start(
            plugins: plugins,
            extraArguments: ["--config", config.file, "--no-watch-plugins"]
        )
        try TestPlugins.linkExample("Products", in: plugins)
        try config.dropIn("60-lobby.conf", "sessions:\n  lobby: products.list\n")
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.call("Sessions")["sessions"] == ["lobby", "main"])
        // Before, the configuration was applied before the rescan: an error, then the session opened anyway.
        #expect(!daemon.log.contains("Cannot open a configured session"), "\(daemon.log)")
        try await daemon.terminate()
    }

    @Test("A session opened over the wire whose root's plugin is missing after a restart opens once the plugin is back")
    func listedSessionOpensWhenItsPluginLoads() async throws {
        let plugins = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(plugins: plugins)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("OpenSession", ["name": "lobby", "root": "products.list"])
        try await daemon.terminate()

        try FileManager.default.removeItem(atPath: "\(plugins)/Products")
        try await daemon.restart()
        let client = try await NavigationClient.connect(to: daemon)
        #expect(try await client.call("Sessions")["sessions"] == ["main"])
        try TestPlugins.linkExample("Products", in: plugins)
        #expect(try await pollUntil { try await client.call("Sessions")["sessions"] == ["lobby", "main"] })
        #expect(try await client.routes(session: "lobby") == ["products.list"])
        let failures = daemon.log.split(separator: "\n").filter {
            $0.contains("Cannot open a session opened over the wire") && $0.contains("lobby")
        }
        #expect(failures.count == 1, "logged once, not at each plugin that loaded: \(failures)")
        try await daemon.terminate()
    }

    @Test(
        "A session a reload opens afresh, after its file went, writes its changes before answering them and tells its watchers its own events"
    )
    func reloadReopeningASessionAfresh() async throws {
        let config = try ConfigFolder("sessions:\n  main: home.main\n")
        try config.dropIn("60-lobby.conf", "sessions:\n  lobby: home.main\n")
        let daemon = try await DaemonProcess.start(extraArguments: ["--config", config.file])
        let nav = try await NavigationClient.connect(to: daemon)
        let reload = {
            let count = daemon.notifications.count
            daemon.send(signal: SIGHUP)
            _ = try await daemon.waitFor("READY=1", after: count)
        }
        let isLoaded: (JSONObject) -> Bool = { $0["event"]?["state"]?["status"] == "loaded" }
        // The first lobby goes well past revision 1; its last event is kept, serialized, for the watchers.
        let first = try await NavigationClient.connect(to: daemon)
        let before = WatchRecorder(first.watch(session: "lobby"))
        _ = try await before.next { $0["snapshot"] != nil }
        for route in ["settings.main", "products.list"] {
            try await nav.call("Navigate", ["session": "lobby", "route": .string(route)])
            _ = try await before.next(where: isLoaded)
        }

        // The reload closes it; its saved stack goes; the next reload opens it afresh.
        try config.removeDropIn("60-lobby.conf")
        try await reload()
        #expect(try await nav.call("Sessions")["sessions"] == ["main"])
        let folder = "\(daemon.stateDirectory)/sessions"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix("lobby.") {
            try FileManager.default.removeItem(atPath: "\(folder)/\(file)")
        }
        try config.dropIn("60-lobby.conf", "sessions:\n  lobby: home.main\n")
        try await reload()
        #expect(try await nav.routes(session: "lobby") == ["home.main"], "opened afresh")

        // Its watcher gets its own screen's state, not the closed session's.
        let second = try await NavigationClient.connect(to: daemon)
        let after = WatchRecorder(second.watch(session: "lobby"))
        _ = try await after.next { $0["snapshot"] != nil }
        try await nav.call("Navigate", ["session": "lobby", "route": "settings.main"])
        let loaded = try await after.next(where: isLoaded)
        #expect(try await nav.topState(session: "lobby") == loaded["event"]?["state"], "\(loaded)")

        // Answered, then a kill -9: the change is there after the restart.
        try await daemon.crash()
        try await daemon.restart()
        let reader = try await NavigationClient.connect(to: daemon)
        #expect(try await reader.routes(session: "lobby") == ["home.main", "settings.main"])
        try await daemon.terminate()
    }

    @Test(
        "SIGHUP with a new session and a lowered limit applies them while a Watch stays; an invalid one changes nothing"
    )
    func reload() async throws {
        let config = try ConfigFolder("sessions:\n  main: home.main\ncontrol:\n  users: [4242]\n")
        let daemon = try await DaemonProcess.start(extraArguments: ["--config", config.file, "--socket-mode", "0666"])
        let nav = try await NavigationClient.connect(to: daemon)
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch())
        _ = try await updates.next { $0["snapshot"] != nil }
        try await nav.call("Navigate", ["route": "settings.main"])

        try config.dropIn(
            "60-reload.conf",
            "sessions:\n  lobby: products.list\nlimits:\n  max-stack-depth: 2\ncontrol:\n  users: [4343]\n"
        )
        var count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)

        #expect(try await nav.call("Sessions")["sessions"] == ["lobby", "main"], "the new session is open")
        let refused = await #expect(throws: VarlinkError.self, "the lowered limit holds") {
            try await nav.call("Navigate", ["route": "products.list"])
        }
        #expect(refused?.name == "io.navhost.Navigation.StackTooDeep")
        let now = try await call(daemon, as: 4343, "io.navhost.Navigation.Pop")
        #expect(!now.hasPrefix("error"), "4343 is listed now: \(now)")
        let before = try await call(daemon, as: 4242, "io.navhost.Navigation.Navigate", #"{"route":"settings.main"}"#)
        #expect(before.hasPrefix("error org.varlink.service.PermissionDenied"), "4242 is not any more: \(before)")
        try await nav.call("Navigate", ["route": "settings.main"])
        let event = try await updates.next { $0["event"]?["kind"] == "pushed" && $0["event"]?["revision"] != nil }
        #expect(event["event"]?["screen"]?["route"] == "settings.main", "the Watch from before the reload goes on")

        // An invalid change: refused with the same message as at start, and nothing changes.
        try config.dropIn("70-bad.conf", "sessions:\n  lobby: null\nlimits:\n  max-stack-depth: zero\n")
        count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let status = try await daemon.waitFor("STATUS=", after: count)
        #expect(status.contains("configuration not reloaded ("), "\(status)")
        #expect(status.contains("70-bad.conf:4:20: limits.max-stack-depth: expected a whole number"), "\(status)")
        #expect(daemon.log.contains("Refused the new configuration; the running one stays"))
        #expect(try await nav.call("Sessions")["sessions"] == ["lobby", "main"])
        let stillRefused = await #expect(throws: VarlinkError.self) {
            try await nav.call("Navigate", ["route": "products.list"])
        }
        #expect(stillRefused?.name == "io.navhost.Navigation.StackTooDeep")
        #expect(!updates.ended, "the Watch client is still connected")

        // Taken out again: the session it added closes.
        try config.removeDropIn("70-bad.conf")
        try config.removeDropIn("60-reload.conf")
        count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        #expect(try await nav.call("Sessions")["sessions"] == ["main"])
        try await daemon.terminate()
    }
}
