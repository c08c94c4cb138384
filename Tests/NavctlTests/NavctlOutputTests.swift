import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// What each subcommand sends and prints, human-readable and `--json`, against a scripted service whose replies are
/// exact.
@Suite("navctl output")
struct NavctlOutputTests {
    static let answers: [String: ScriptedNavigationService.Answer] = [
        "io.navhost.Navigation.Stack": .reply([
            "snapshot": NavigationSamples.snapshot(
                revision: 6,
                stack: [NavigationSamples.home, NavigationSamples.productList, NavigationSamples.productDetail]
            )
        ]),
        "io.navhost.Navigation.Sessions": .reply(["sessions": ["main", "kiosk"]]),
        "io.navhost.Navigation.Routes": .reply(NavigationSamples.routesReply),
        "io.navhost.Plugins.List": .reply(NavigationSamples.pluginsReply),
        "io.navhost.Plugins.Load": .reply(["plugin": NavigationSamples.productsPlugin]),
        "io.navhost.Plugins.Reload": .reply(["plugin": NavigationSamples.reloadedProductsPlugin]),
        "io.navhost.Plugins.Unload": .reply([:]),
        "io.navhost.Navigation.Navigate": .reply(["revision": 7, "screen": NavigationSamples.productDetail]),
        "io.navhost.Navigation.Present": .reply(["revision": 8, "screen": NavigationSamples.settings]),
        "io.navhost.Navigation.Pop": .reply(["revision": 9, "removed": ["s3"]]),
        "io.navhost.Navigation.PopToRoot": .reply(["revision": 9, "removed": []]),
        "io.navhost.Navigation.PopTo": .reply(["revision": 10, "removed": ["s4", "s3"]]),
        "io.navhost.Navigation.Dismiss": .reply(["revision": 11, "removed": ["s4"]]),
        "io.navhost.Navigation.Replace": .reply([
            "revision": 12, "stack": [NavigationSamples.home, NavigationSamples.productDetail],
        ]),
        "io.navhost.Navigation.Send": .reply(["revision": 13, "screen": NavigationSamples.productList]),
        "io.navhost.Navigation.OpenSession": .reply([
            "snapshot": NavigationSamples.snapshot(
                revision: 0,
                stack: [NavigationSamples.productList],
                session: "passenger"
            )
        ]),
        "io.navhost.Navigation.CloseSession": .reply([:]),
    ]

    @Test(
        "Each subcommand prints its reply for people, and with --json as one line in the reply's wire form",
        arguments: [
            ("stack", ["stack"]),
            ("stack-json", ["stack", "--json"]),
            ("sessions", ["sessions"]),
            ("sessions-json", ["sessions", "--json"]),
            ("routes", ["routes"]),
            ("routes-json", ["routes", "--json"]),
            ("plugins", ["plugins"]),
            ("plugins-json", ["plugins", "--json"]),
            ("plugins-list", ["plugins", "list"]),
            ("plugins-list-json", ["plugins", "list", "--json"]),
            ("plugins-load", ["plugins", "load", "/usr/lib/navhost/plugins/Products"]),
            ("plugins-load-json", ["plugins", "load", "/usr/lib/navhost/plugins/Products", "--json"]),
            ("plugins-reload", ["plugins", "reload", "Products"]),
            ("plugins-reload-json", ["plugins", "reload", "Products", "--json"]),
            ("plugins-unload", ["plugins", "unload", "Products"]),
            ("plugins-unload-json", ["plugins", "unload", "Products", "--json"]),
            ("navigate", ["navigate", "products.detail", "productID=p3"]),
            ("navigate-json", ["navigate", "products.detail", "productID=p3", "--json"]),
            ("present", ["present", "settings.main"]),
            ("pop", ["pop"]),
            ("pop-json", ["pop", "--json"]),
            ("root", ["root"]),
            ("popto", ["popto", "products.list"]),
            ("dismiss", ["dismiss"]),
            ("replace", ["replace", "home.main", "products.detail", "productID=p3"]),
            ("replace-json", ["replace", "home.main", "products.detail", "productID=p3", "--json"]),
            ("send", ["send", "onChangedFilter", "text=lamp"]),
            ("send-json", ["send", "onChangedFilter", "text=lamp", "--json"]),
            ("session-open", ["session", "open", "passenger", "products.list"]),
            ("session-open-json", ["session", "open", "passenger", "products.list", "--json"]),
            ("session-close", ["session", "close", "passenger"]),
            ("session-close-json", ["session", "close", "passenger", "--json"]),
            ("session-list", ["session", "list"]),
        ]
    )
    func output(name: String, arguments: [String]) async throws {
        let service = try await ScriptedNavigationService.start(Self.answers)
        let run = try await Navctl.run(arguments + ["--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        if arguments.contains("--json") {
            let lines = run.output.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(try lines.allSatisfy { try JSONParser().parse(String($0)).objectValue != nil })
        }
        try Snapshots.assertMatches(run, named: name, replacing: [service.socketPath: "<socket>"])
    }

    @Test(
        "Control characters the daemon sent (a plugin's message, a state's text) are shown escaped for people, as JSON's escapes with --json",
        arguments: [
            // A plugin's message as it is; a state as JSON, whose escapes show C0 already, but not C1.
            // A line break in a table's cell would make a row of its own.
            (["plugins", "list"], #"no forecast \u{1B}]0;owned\u{7}\u{9B}2J\u{A}Forged  1.0.0  loaded"#),
            (["stack"], #""title": "Hi \u001b]0;owned\u0007\u{9B}2J\nForged  1.0.0  loaded""#),
            // An event is one line.
            (["plugins", "watch"], #"no init \u{1B}]0;owned\u{7}\u{9B}2J\u{A}Forged  1.0.0  loaded"#),
        ]
    )
    func controlCharactersInOutput(arguments: [String], shown: String) async throws {
        let raw = "\u{1B}]0;owned\u{07}\u{9B}2J\nForged  1.0.0  loaded"
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Plugins.List": .reply([
                "plugins": [
                    [
                        "name": "Weather", "version": "0.3.0", "state": "quarantined",
                        "path": "/usr/lib/navhost/plugins/Weather/libWeatherFeature.so", "routes": ["weather.today"],
                        "quarantine": ["code": "initFailed", "message": .string("no forecast \(raw)")],
                    ]
                ]
            ]),
            "io.navhost.Plugins.Watch": .stream(
                [
                    ["plugins": []],
                    [
                        "event": [
                            "kind": "failed", "name": "Weather", "folder": "/usr/lib/navhost/plugins/Weather",
                            "reason": ["code": "initialisationFailed", "message": .string("no init \(raw)")],
                        ]
                    ],
                ],
                end: .finalReply
            ),
            "io.navhost.Navigation.Stack": .reply([
                "snapshot": NavigationSamples.snapshot(
                    revision: 1,
                    stack: [
                        [
                            "id": "s1", "route": "home.main", "parameters": [:], "presentation": "push",
                            "state": ["title": .string("Hi \(raw)")],
                        ]
                    ]
                )
            ]),
        ])
        let run = try await Navctl.run(arguments + ["--socket", service.socketPath])
        let json = try await Navctl.run(arguments + ["--json", "--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(run.output)")
        #expect(!run.output.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) }, "\(run.output)")
        #expect(run.output.contains(shown), "\(run.output)")
        // JSON keeps the text: its parse gives back what the daemon sent; C1 escaped too, as JSON allows.
        #expect(json.status == 0, "\(json.errors)")
        #expect(!json.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(json.output)")
        #expect(!json.output.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) }, "\(json.output)")
        #expect(json.output.contains("\\u009b2J\\nForged"), "\(json.output)")
        if arguments.first == "plugins" { #expect(run.output.split(separator: "\n").count == 2, "\(run.output)") }
        let parsed = try json.output.split(separator: "\n").map {
            try JSONParser().parse(String($0)).serializedString()
        }
        #expect(parsed.joined(separator: "\n").contains("\\u001b]0;owned\\u0007\u{9B}2J"))
    }

    @Test("key=value values are JSON when they parse as JSON, plain strings otherwise")
    func keyValueRules() async throws {
        let service = try await ScriptedNavigationService.start(Self.answers)
        let run = try await Navctl.run(
            [
                "navigate", "products.detail", "productID=p3", "count=3", "ratio=0.5", "flag=true", "none=null",
                "quoted=\"42\"", "list=[1,\"a\"]", "object={\"min\":2}", "text=lamp shade", "empty=", "it=it's",
                "broken={\"a\":", "equation=a=b", "version=1.", "listed=[1.]", "dotted=[\"1.\",2.5]",
                "--socket", service.socketPath, "--session", "kiosk",
            ]
        )
        await service.stop()
        #expect(run.status == 0, "\(run.errors)")
        let expected: JSONObject = [
            "productID": "p3", "count": 3, "ratio": 0.5, "flag": true, "none": nil, "quoted": "42",
            "list": [1, "a"], "object": ["min": 2], "text": "lamp shade", "empty": "", "it": "it's",
            "broken": "{\"a\":", "equation": "a=b",
            // json-c reads `1.` as a number; JSON has none such: the text as written.
            "version": "1.", "listed": "[1.]", "dotted": ["1.", 2.5],
        ]
        #expect(
            service.calls
                == [
                    .init(
                        method: "io.navhost.Navigation.Navigate",
                        parameters: ["session": "kiosk", "route": "products.detail", "parameters": .object(expected)]
                    )
                ]
        )
    }

    @Test("Each subcommand calls its method with the session, screen and parameters it was given")
    func calls() async throws {
        let service = try await ScriptedNavigationService.start(Self.answers)
        let socket = ["--socket", service.socketPath]
        for arguments in [
            ["stack", "--session", "kiosk"], ["pop"], ["root", "--session", "kiosk"], ["popto", "products.list"],
            ["popto", "products.detail", "productID=p3"], ["dismiss"], ["present", "settings.main", "tab=2"],
            ["send", "onTappedRetry", "--screen", "s2"], ["replace", "home.main"],
        ] {
            let run = try await Navctl.run(arguments + socket)
            #expect(run.status == 0, "\(arguments): \(run.errors)")
        }
        await service.stop()
        #expect(
            service.calls
                == [
                    .init(method: "io.navhost.Navigation.Stack", parameters: ["session": "kiosk"]),
                    .init(method: "io.navhost.Navigation.Pop", parameters: [:]),
                    .init(method: "io.navhost.Navigation.PopToRoot", parameters: ["session": "kiosk"]),
                    .init(method: "io.navhost.Navigation.PopTo", parameters: ["route": "products.list"]),
                    .init(
                        method: "io.navhost.Navigation.PopTo",
                        parameters: ["route": "products.detail", "parameters": ["productID": "p3"]]
                    ),
                    .init(method: "io.navhost.Navigation.Dismiss", parameters: [:]),
                    .init(
                        method: "io.navhost.Navigation.Present",
                        parameters: ["route": "settings.main", "parameters": ["tab": 2]]
                    ),
                    // For people, send asks for the stack before and after, to say where an intent navigated.
                    .init(method: "io.navhost.Navigation.Stack", parameters: [:]),
                    .init(
                        method: "io.navhost.Navigation.Send",
                        parameters: ["screen": "s2", "intent": "onTappedRetry"]
                    ),
                    .init(method: "io.navhost.Navigation.Stack", parameters: [:]),
                    .init(method: "io.navhost.Navigation.Replace", parameters: ["routes": [["route": "home.main"]]]),
                ]
        )
    }

    @Test("plugins load sends an absolute path: a relative one is resolved against the current directory as written")
    func pluginsLoadPath() async throws {
        let service = try await ScriptedNavigationService.start(Self.answers)
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: "\(directory)/staged/a", withIntermediateDirectories: true)
        for path in ["Products", "./Products/", "../a/.//Products", "/srv/plugins/../Products", "/"] {
            let run = try await Navctl.run(
                ["plugins", "load", path, "--socket", service.socketPath],
                in: "\(directory)/staged/a"
            )
            #expect(run.status == 0, "\(path): \(run.errors)")
        }
        await service.stop()
        // The temporary directory may be reached through a symbolic link; getcwd names it without.
        let here = URL(fileURLWithPath: "\(directory)/staged/a").resolvingSymlinksInPath().path
        #expect(
            service.calls.map { $0.parameters["path"]?.stringValue }
                == ["\(here)/Products", "\(here)/Products", "\(here)/Products", "/srv/Products", "/"]
        )
    }

    @Test("Without --socket, navctl uses NAVHOST_SOCKET")
    func socketFromEnvironment() async throws {
        let service = try await ScriptedNavigationService.start(Self.answers)
        let run = try await Navctl.run(["sessions"], environment: ["NAVHOST_SOCKET": service.socketPath])
        await service.stop()
        #expect(run.status == 0)
        #expect(run.output == "main\nkiosk\n")
    }

    @Test("An intent that closes its screen says so")
    func sendClosingTheScreen() async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Send": .reply(["revision": 14]),
            "io.navhost.Navigation.Stack": NavctlOutputTests.answers["io.navhost.Navigation.Stack"]!,
        ])
        let run = try await Navctl.run(["send", "onTappedClose", "--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 0)
        #expect(run.output == "revision 14: onTappedClose closed the screen\n")
    }
}
