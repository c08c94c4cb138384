import Foundation
import IntegrationHarness
import NavHostClient
import NavHostJSON
import Testing

/// The built `navctl` against the real `navhostd` process.
///
/// The tests in ``WithExamplePlugins`` need the example plugins staged by the build (`.build/<config>/plugins`) and a
/// daemon that loads them; they are skipped until the build stages them.
@Suite("navctl against navhostd")
struct NavctlDaemonTests {
    /// Starts a daemon (with no plugins unless `plugins` names them, and `arguments` added to its command line), runs
    /// `body`, and stops the daemon however `body` ends. The daemon's state and log, and the empty plugin directory,
    /// are removed afterwards.
    static func withDaemon(
        plugins: String? = nil,
        arguments: [String] = [],
        _ body: (DaemonProcess) async throws -> Void
    ) async throws {
        let noPlugins = try TestPaths.temporaryDirectory()
        let daemon = try await DaemonProcess.start(plugins: plugins ?? noPlugins, extraArguments: arguments)
        defer { removeFiles(of: daemon, and: noPlugins) }
        do {
            try await body(daemon)
        } catch {
            try await daemon.terminate()
            throw error
        }
        try await daemon.terminate()
    }

    /// Removes the temporary directory a daemon kept its state and log in, and `directory`.
    static func removeFiles(of daemon: DaemonProcess, and directory: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: daemon.stateDirectory).deletingLastPathComponent())
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Without plugins

    @Test("Without plugins: no sessions, no plugins, and stack refuses with SessionNotFound (exit 2)")
    func noPlugins() async throws {
        try await Self.withDaemon { daemon in
            let socket = ["--socket", daemon.socketPath]
            let sessions = try await Navctl.run(["sessions"] + socket)
            #expect(sessions.status == 0)
            #expect(sessions.output.isEmpty)
            let plugins = try await Navctl.run(["plugins", "--json"] + socket)
            #expect(plugins.output.hasPrefix(#"{"plugins":[],"pluginsFolder":"/"#), "\(plugins.output)")
            #expect(plugins.output.hasSuffix(#","watchesPluginsFolder":true}"# + "\n"), "\(plugins.output)")
            let stack = try await Navctl.run(["stack"] + socket)
            #expect(stack.status == 2)
            // The configuration declares main; with no plugins its root route cannot open, and the error says why and
            // what to do.
            let reason =
                #"declared by the configuration, but its root route cannot be opened now (RouteNotFound: no loaded "#
                + #"feature offers route "home.main"); it opens once the route's plugin loads; another root: navhostd "#
                + "--session main=ROUTE, or sessions in navhostd.conf"
            let quoted = reason.replacingOccurrences(of: "\"", with: "\\\"")
            #expect(
                stack.errors == #"Error: io.navhost.Navigation.SessionNotFound {"session":"main","reason":""#
                    + quoted + #""}: session "main" is not open: "# + reason + "\n",
                "\(stack.errors)"
            )
            let navigate = try await Navctl.run(["navigate", "products.detail", "productID=p3"] + socket)
            #expect(navigate.status == 2)
            #expect(navigate.errors.hasPrefix("Error: io.navhost.Navigation.SessionNotFound"), "\(navigate.errors)")
        }
    }

    @Test("The options every subcommand takes may come before the subcommand as well as after it")
    func globalOptionsFirst() async throws {
        try await Self.withDaemon { daemon in
            let after = try await Navctl.run(["plugins", "--json", "--socket", daemon.socketPath])
            let before = try await Navctl.run(["--socket", daemon.socketPath, "--json", "plugins"])
            #expect(after.status == 0)
            #expect(before.status == 0)
            #expect(before.output == after.output)
            #expect(before.output.hasPrefix(#"{"plugins":[],"#), "\(before.output)")
            // --session before the subcommand reaches the subcommand: the daemon is asked for that session.
            let stack = try await Navctl.run(["--session", "kiosk", "--socket", daemon.socketPath, "stack"])
            #expect(stack.status == 2)
            #expect(stack.errors.contains(#"{"session":"kiosk"}"#), "\(stack.errors)")
        }
    }

    @Test("A stopped daemon's socket is unreachable (exit 69)")
    func stoppedDaemon() async throws {
        let noPlugins = try TestPaths.temporaryDirectory()
        let daemon = try await DaemonProcess.start(plugins: noPlugins)
        defer { Self.removeFiles(of: daemon, and: noPlugins) }
        try await daemon.terminate()
        let run = try await Navctl.run(["stack", "--socket", daemon.socketPath])
        #expect(run.status == 69)
        #expect(run.errors.hasPrefix("Error: daemonUnreachable: "))
    }

    // MARK: - With the example plugins

    @Suite(
        "With the example plugins",
        .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
    )
    struct WithExamplePlugins {
        @Test("send says where an intent navigated, and says nothing of the stack for one that did not")
        func sendThatNavigates() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let socket = ["--socket", daemon.socketPath]
                let navigate = try await Navctl.run(["navigate", "products.list", "--json"] + socket)
                #expect(navigate.status == 0, "\(navigate.errors)")
                let list = try #require(try JSONParser().parse(navigate.output)["screen"]?["id"]?.stringValue)

                let filter = try await Navctl.run(["send", "onChangedFilter", "text=engine"] + socket)
                #expect(filter.status == 0, "\(filter.errors)")
                #expect(filter.output.contains("onChangedFilter handled by \(list) products.list"), "\(filter.output)")
                #expect(!filter.output.contains("the stack's top"), "\(filter.output)")

                let open = try await Navctl.run(["send", "onTappedProduct", "productID=p3"] + socket)
                #expect(open.status == 0, "\(open.errors)")
                let top = try await NavHostClient.withConnection(socketPath: daemon.socketPath) { client in
                    try await client.stack().stack.last
                }
                #expect(top?.route.id == "products.detail")
                #expect(
                    open.output.hasSuffix(
                        #"the stack's top is now \#(top?.id.rawValue ?? "?") products.detail {"productID":"p3"}"#
                            + " (navctl stack shows it)\n"
                    ),
                    "\(open.output)"
                )
            }
        }

        @Test("A key=value read as JSON where the daemon wants a string gets a hint on quoting it; a string does not")
        func quotingHint() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let socket = ["--socket", daemon.socketPath]
                let number = try await Navctl.run(["navigate", "products.detail", "productID=3"] + socket)
                #expect(number.status == 2)
                let lines = number.errors.split(separator: "\n")
                #expect(lines.first?.hasPrefix("Error: io.navhost.Navigation.InvalidRouteParameters") == true)
                #expect(
                    lines.dropFirst() == [
                        #"hint: productID=3 sent 3 as JSON; to send the string, write productID='"3"'"#
                    ],
                    "\(number.errors)"
                )
                let quoted = try await Navctl.run(["navigate", "products.detail", #"productID="3""#] + socket)
                #expect(quoted.status == 0, "\(quoted.errors)")
                let missing = try await Navctl.run(["navigate", "products.detail", "productId=p1"] + socket)
                #expect(missing.status == 2)
                #expect(!missing.errors.contains("hint:"), "\(missing.errors)")
            }
        }

        @Test("Intent arguments the daemon refuses get the intent's signature: missing, extra, or of the wrong type")
        func signatureHint() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let socket = ["--socket", daemon.socketPath]
                #expect(try await Navctl.run(["navigate", "settings.main"] + socket).status == 0)
                for (arguments, signature) in [
                    (["onChangedNotificationsEnabled"], "onChangedNotificationsEnabled(isEnabled: bool)"),
                    (
                        ["onChangedNotificationsEnabled", "isEnabled=yes"],
                        "onChangedNotificationsEnabled(isEnabled: bool)"
                    ),
                    (["onChangedTheme", "theme=blue"], "onChangedTheme(theme: (light, dark, system))"),
                    (["onTappedRetry", "now=true"], "onTappedRetry()"),
                ] {
                    let refused = try await Navctl.run(["send"] + arguments + socket)
                    #expect(refused.status == 2, "\(refused.errors)")
                    let lines = refused.errors.split(separator: "\n").map(String.init)
                    #expect(lines.first?.hasPrefix("Error: io.navhost.Navigation.InvalidIntentArguments") == true)
                    // Before, the reason named one member: a second argument missing or wrong came a call later.
                    #expect(lines.dropFirst() == ["hint: the intent is \(signature)"], "\(lines)")
                }
            }
        }

        @Test(
            "session open's limits navctl lets through are the daemon's own: both ends of each range open a session, in seconds or as navhostd spells a time"
        )
        func sessionOpenLimits() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let socket = ["--socket", daemon.socketPath]
                // A time as navhostd's own --intent-timeout spells it (1ms, 1440m, 2m), or plain seconds as before.
                for (name, options) in [
                    ("low", ["--max-stack-depth", "1", "--intent-timeout", "0.001"]),
                    ("high", ["--max-stack-depth", "1048576", "--intent-timeout", "86400"]),
                    ("low-spelt", ["--intent-timeout", "1ms"]),
                    ("high-spelt", ["--intent-timeout", "1440m"]),
                    ("minutes", ["--intent-timeout", "2m"]),
                ] {
                    let open = try await Navctl.run(["session", "open", name, "home.main"] + options + socket)
                    #expect(open.status == 0, "\(name): \(open.errors)")
                }
                // What the daemon was sent, as it keeps it to open the sessions again after a restart.
                let file = try Data(contentsOf: URL(fileURLWithPath: "\(daemon.stateDirectory)/opened-sessions.json"))
                let list = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
                let entries = try #require(list["sessions"] as? [[String: Any]])
                let limits = Dictionary(
                    uniqueKeysWithValues: entries.map {
                        ($0["name"] as? String, $0["intentTimeoutMilliseconds"] as? Int)
                    }
                )
                #expect(
                    limits == [
                        "low": 1, "high": 86_400_000, "low-spelt": 1, "high-spelt": 86_400_000, "minutes": 120_000,
                    ],
                    "\(limits)"
                )
                // Past either end navctl refuses it itself (64), where it once sent it (InvalidParameter, 2) or, for
                // inf, trapped converting it to milliseconds; and off, which OpenSession has no value for.
                for options in [
                    ["--intent-timeout", "inf"], ["--intent-timeout", "0.0004"], ["--intent-timeout", "1441m"],
                    ["--intent-timeout", "off"], ["--intent-timeout", "soon"], ["--max-stack-depth", "1048577"],
                ] {
                    let open = try await Navctl.run(["session", "open", "past", "home.main"] + options + socket)
                    #expect(open.status == 64, "\(options): \(open.errors)")
                }
                let sessions = try await Navctl.run(["sessions"] + socket)
                #expect(
                    sessions.output.split(separator: "\n").sorted()
                        == ["high", "high-spelt", "low", "low-spelt", "main", "minutes"],
                    "\(sessions.output)"
                )
            }
        }

        @Test("navigate, send and pop through navctl; watch --json sees each revision; Ctrl-C ends it with 0")
        func newcomerSession() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let socket = ["--socket", daemon.socketPath]
                let watch = try RunningNavctl(["watch", "--json"] + socket)
                let first = try JSONParser().parse(try await watch.waitForLines(1)[0])
                let start = try #require(first["snapshot"]?["revision"]?.intValue)
                #expect(first["snapshot"]?["stack"]?.arrayValue?.count == 1)

                let stack = try await Navctl.run(["stack"] + socket)
                #expect(stack.status == 0)
                #expect(stack.output.contains("=> s1  home.main"), "\(stack.output)")

                let navigate = try await Navctl.run(["navigate", "products.list", "--json"] + socket)
                #expect(navigate.status == 0, "\(navigate.errors)")
                let pushed = try JSONParser().parse(navigate.output)
                #expect(pushed["revision"]?.intValue == start + 1)
                let screenID = try #require(pushed["screen"]?["id"]?.stringValue)

                let send = try await Navctl.run(["send", "onChangedFilter", "text=engine", "--json"] + socket)
                #expect(send.status == 0, "\(send.errors)")
                let sent = try JSONParser().parse(send.output)
                #expect(
                    sent["screen"]?["state"]?["value"]?["filter"] == "engine"
                        || sent["screen"]?["state"]?["status"] == "loading"
                )

                let pop = try await Navctl.run(["pop"] + socket)
                #expect(pop.status == 0)
                #expect(pop.output.hasSuffix(": removed \(screenID)\n"), "\(pop.output)")
                let popAgain = try await Navctl.run(["pop"] + socket)
                #expect(popAgain.status == 2)
                #expect(popAgain.errors.hasPrefix("Error: io.navhost.Navigation.CannotPopRoot"))

                let end = try await NavHostClient.withConnection(socketPath: daemon.socketPath) { try await $0.stack() }
                let lines = try await watch.waitForLines(Int(Int64(end.revision) - start) + 1)
                watch.send(signal: SIGINT)
                let run = try await watch.waitForExit()
                #expect(run.status == 0)
                #expect(run.errors.isEmpty)

                let events = try lines.dropFirst().map { try JSONParser().parse($0)["event"] }
                #expect(events.map { $0?["revision"]?.intValue } == Array((start + 1)...Int64(end.revision)))
                #expect(events.first??["kind"] == "pushed")
                #expect(events.last??["kind"] == "popped")
                #expect(
                    events.contains { $0?["kind"] == "stateChanged" && $0?["state"]?["value"]?["filter"] == "engine" }
                )
            }
        }

        @Test("A daemon that stops ends navctl watch with 0")
        func daemonStops() async throws {
            let daemon = try await DaemonProcess.start(plugins: DaemonProcess.examplePlugins)
            defer { NavctlDaemonTests.removeFiles(of: daemon, and: daemon.stateDirectory) }
            let watch = try RunningNavctl(["watch", "--socket", daemon.socketPath])
            _ = try await watch.waitForLines(1)
            try await daemon.terminate()
            let run = try await watch.waitForExit()
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors == "navctl: the daemon is stopping; it ended the watch\n")
        }

        @Test("routes, stack and plugins show the example features and a fresh session")
        func catalog() async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let routes = try await Navctl.run(["routes", "--socket", daemon.socketPath])
                #expect(routes.status == 0)
                for route in ["home.main", "products.list", "products.detail", "profile.user", "settings.main"] {
                    let lines = routes.output.split(separator: "\n")
                    #expect(lines.contains { $0.hasPrefix("\(route)  ") || $0.hasPrefix("\(route)(") }, "\(route)")
                }
                try Snapshots.assertMatches(routes, named: "daemon-routes", replacing: [daemon.socketPath: "<socket>"])
                let stack = try await Navctl.run(["stack", "--socket", daemon.socketPath])
                try Snapshots.assertMatches(stack, named: "daemon-stack", replacing: [daemon.socketPath: "<socket>"])
                let plugins = try await Navctl.run(["plugins", "--json", "--socket", daemon.socketPath])
                let list = try JSONParser().parse(plugins.output)["plugins"]?.arrayValue ?? []
                #expect(
                    Set(list.compactMap { $0["name"]?.stringValue }) == ["Home", "Products", "Settings", "UserProfile"]
                )
            }
        }

        @Test(
            "A misspelt route, intent, plugin or session gets the name it probably meant; a name like none gets none",
            arguments: [
                (["navigate", "products.lsit"], "hint: did you mean 'products.list'?"),
                (["send", "onTappedSettngs"], "hint: did you mean 'onTappedSettings'?"),
                (["plugins", "reload", "Prodcts"], "hint: did you mean 'Products'?"),
                (["--session", "mian", "stack"], "hint: did you mean 'main'?"),
                (["watch", "--session", "mian"], "hint: did you mean 'main'?"),
                (["navigate", "checkout.cart"], nil),
                (["plugins", "unload", "Nope"], nil),
            ]
        )
        func misspeltNames(arguments: [String], hint: String?) async throws {
            try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
                let run = try await Navctl.run(arguments + ["--socket", daemon.socketPath])
                #expect(run.status == 2, "\(run.errors)")
                let lines = run.errors.split(separator: "\n").map(String.init)
                // Before, the error line alone: the operator was left to list the names and compare them.
                #expect(lines.count == (hint == nil ? 1 : 2) && lines.first?.hasPrefix("Error: ") == true, "\(lines)")
                #expect(lines.dropFirst().first == hint, "\(lines)")
            }
        }
    }
}
