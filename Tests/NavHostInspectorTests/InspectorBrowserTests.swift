import Foundation
import IntegrationHarness
import NavHostClient
import NavHostJSON
import Testing

/// The inspector as a user meets it: the real `navhostd` with the example plugins, the real `navctl inspect`, and
/// the page in Debian's headless Chromium, driven through the DevTools protocol.
///
/// It fails, never skips, when Chromium or the staged plugins are missing: `make test` installs the one
/// (scripts/install-deps.sh) and stages the other.
@Suite("The inspector page in headless Chromium")
struct InspectorBrowserTests {
    @Test("The page follows the stack live, sends an intent, pops, and refuses requests without the token")
    func pageFollowsAndDrivesTheDaemon() async throws {
        try #require(
            DaemonProcess.examplePluginsAreStaged,
            "the example plugins are not staged in \(DaemonProcess.examplePlugins): run make build"
        )
        let daemon = try await DaemonProcess.start(plugins: DaemonProcess.examplePlugins)
        let profile = try TestPaths.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: profile)
            try? FileManager.default.removeItem(
                at: URL(fileURLWithPath: daemon.stateDirectory).deletingLastPathComponent()
            )
        }
        let inspector = try SpawnedProcess(
            TestPaths.builtExecutable("navctl"),
            ["inspect", "--socket", daemon.socketPath]
        )
        let browser = try HeadlessChromium(profile: profile)
        do {
            try await drive(browser, inspector: inspector, daemon: daemon)
        } catch {
            await browser.stop()
            inspector.send(SIGKILL)
            _ = try? await daemon.terminate()
            Issue.record("Chromium's log:\n\(browser.log.suffix(3000))")
            throw error
        }
        // Ctrl-C while the page is still open, its websocket connected: navctl inspect ends, and with 0.
        inspector.send(SIGINT)
        let status = try await withTimeout(.seconds(20), "navctl inspect to stop on SIGINT") {
            await inspector.waitForExit()
        }
        #expect(status == 0, "navctl inspect ends with 0 on Ctrl-C")
        await browser.stop()
        try await daemon.terminate()
    }

    @Test("navctl inspect without a daemon fails with 69, as every navctl command does")
    func daemonUnreachable() async throws {
        let inspector = try SpawnedProcess(
            TestPaths.builtExecutable("navctl"),
            ["inspect", "--socket", "/tmp/navhost-inspector-no-daemon-\(getpid()).sock"]
        )
        let error = await inspector.readErrorLine()
        let status = try await withTimeout(.seconds(20), "navctl inspect to give up") { await inspector.waitForExit() }
        #expect(status == 69)
        #expect(error?.hasPrefix("Error: daemonUnreachable") == true, "\(error ?? "")")
    }

    @Test("navctl inspect on a port another program holds fails with 1 and names the port and the way out")
    func portInUse() async throws {
        let daemon = try await DaemonProcess.start(plugins: DaemonProcess.examplePlugins)
        // Another program on a loopback port the system picked.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))

        let inspector = try SpawnedProcess(
            TestPaths.builtExecutable("navctl"),
            ["inspect", "--socket", daemon.socketPath, "--port", "\(port)"]
        )
        let error = await inspector.readErrorLine()
        let status = try await withTimeout(.seconds(20), "navctl inspect to give up") { await inspector.waitForExit() }
        #expect(status == 1)
        #expect(
            error == "Error: port \(port) on 127.0.0.1 is in use: give another with --port, or leave --port out "
                + "to let the system pick a free one"
        )
        try await daemon.terminate()
    }
}

// MARK: - The steps

extension InspectorBrowserTests {
    func drive(_ browser: HeadlessChromium, inspector: SpawnedProcess, daemon: DaemonProcess) async throws {
        let url = try await pageAddress(printedBy: inspector)
        let port = try #require(URLComponents(string: url)?.port)
        let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(token)")

        // Requests without the right token are refused, the websocket upgrade included.
        let host = "Host: 127.0.0.1:\(port)"
        #expect(try await LoopbackHTTP.status(port: port, ["GET / HTTP/1.1", host, "Connection: close"]) == 401)
        let wrong = String(repeating: "0", count: 32)
        #expect(
            try await LoopbackHTTP.status(port: port, ["GET /?token=\(wrong) HTTP/1.1", host, "Connection: close"])
                == 403
        )
        let upgrade = [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ]
        #expect(try await LoopbackHTTP.status(port: port, ["GET /ws HTTP/1.1", host] + upgrade) == 401)
        #expect(
            try await LoopbackHTTP.status(
                port: port,
                ["GET /ws?token=\(token) HTTP/1.1", host, "Origin: http://127.0.0.1:1"] + upgrade
            ) == 403
        )
        #expect(try await LoopbackHTTP.status(port: port, ["GET /ws?token=\(token) HTTP/1.1", host] + upgrade) == 101)

        // The page, with the token, in the browser.
        let inspect = try await openPage(url, in: browser)

        try await inspect.waitUntil("the stack shows home.main") { try await inspect.stackRoutes() == ["home.main"] }
        #expect(try await inspect.text("plugins").contains("Products"))

        // Someone else moves the session: the page follows.
        let navigate = try await ChildProcess.run(
            TestPaths.builtExecutable("navctl"),
            ["navigate", "products.list", "--socket", daemon.socketPath]
        )
        #expect(navigate.status == 0, "\(navigate.errors)")
        try await inspect.waitUntil("the stack shows products.list on top") {
            try await inspect.stackRoutes() == ["home.main", "products.list"]
        }
        try await inspect.waitUntil("the intent form offers onChangedFilter") {
            try await inspect.evaluate("[...document.getElementById('intent').options].map(o => o.value)")
                .arrayValue?.contains("onChangedFilter") == true
        }

        // The form says what the chosen intent takes (the Routes reply's intentArguments).
        _ = try await inspect.evaluate(
            """
            document.getElementById('intent').value = 'onChangedFilter';
            document.getElementById('intent').dispatchEvent(new Event('change'));
            """
        )
        try await inspect.waitUntil("the arguments box asks for text") {
            try await inspect.evaluate("document.getElementById('arguments').placeholder").stringValue
                == "text=… (string)"
        }

        // An intent sent from the page's form.
        _ = try await inspect.evaluate(
            """
            document.getElementById('intent').value = 'onChangedFilter';
            document.getElementById('arguments').value = 'text=engine';
            document.getElementById('intent-form').requestSubmit();
            """
        )
        try await inspect.waitUntil("the top screen's state shows the filter \"engine\"") {
            try await inspect.text("state").contains(#"filter: "engine""#)
        }
        try await inspect.waitUntil("the page reports the intent handled") {
            try await inspect.text("result").contains("onChangedFilter handled")
        }
        let snapshot = try await NavHostClient.withConnection(socketPath: daemon.socketPath) { try await $0.stack() }
        #expect(snapshot.stack.last?.state["value"]?["filter"] == "engine", "the daemon holds what the page shows")

        // The timeline shows the newest revision's merge patch when it is chosen.
        _ = try await inspect.evaluate("document.querySelector('#timeline button').click()")
        try await inspect.waitUntil("the diff of the newest revision is shown") {
            try await inspect.text("diff-heading").hasPrefix("Diff of revision ")
        }
        #expect(try await inspect.text("diff").contains("\"screens\""))
        try await inspect.screenshot(to: "\(TestPaths.buildDirectory)/inspector-screenshot.png")

        // A pop from the page.
        _ = try await inspect.evaluate("document.getElementById('pop').click()")
        try await inspect.waitUntil("the stack shrinks back to home.main") {
            try await inspect.stackRoutes() == ["home.main"]
        }

        // The daemon restarts: the page says it is gone, then follows it again.
        try await daemon.terminate()
        try await inspect.waitUntil("the page says navhostd is not reachable") {
            try await inspect.text("connection").contains("not reachable")
        }
        try await daemon.restart()
        try await inspect.waitUntil("the page follows the restarted daemon") {
            guard try await inspect.text("connection").hasPrefix("Live") else { return false }
            return try await inspect.stackRoutes() == ["home.main"]
        }

        // An argument that takes only some values lists them.
        let settings = try await ChildProcess.run(
            TestPaths.builtExecutable("navctl"),
            ["navigate", "settings.main", "--socket", daemon.socketPath]
        )
        #expect(settings.status == 0, "\(settings.errors)")
        try await inspect.waitUntil("the intent form offers onChangedTheme") {
            try await inspect.evaluate("[...document.getElementById('intent').options].map(o => o.value)")
                .arrayValue?.contains("onChangedTheme") == true
        }
        _ = try await inspect.evaluate(
            """
            document.getElementById('intent').value = 'onChangedTheme';
            document.getElementById('intent').dispatchEvent(new Event('change'));
            """
        )
        try await inspect.waitUntil("the arguments box lists the themes") {
            try await inspect.evaluate("document.getElementById('arguments').placeholder").stringValue
                == "theme=… (light | dark | system)"
        }

        // A session the address asks for (navctl inspect --session) that is not open: the page says so, shows main
        // meanwhile, and the session once it opens.
        let later = try await openPage(url + "#session=later", in: browser)
        try await later.waitUntil("the page says session later is not open") {
            try await later.text("connection")
                == "Live: following navhostd. Session later is not open; the page shows it once it opens, main until then."
        }
        #expect(try await later.stackRoutes() == ["home.main", "settings.main"])
        let opened = try await ChildProcess.run(
            TestPaths.builtExecutable("navctl"),
            ["session", "open", "later", "products.list", "--socket", daemon.socketPath]
        )
        #expect(opened.status == 0, "\(opened.errors)")
        try await later.waitUntil("the page shows session later, and says nothing more about it") {
            guard try await later.stackRoutes() == ["products.list"] else { return false }
            return try await later.text("connection") == "Live: following navhostd."
        }
    }

    /// Opens `url` in a new tab of `browser`.
    func openPage(_ url: String, in browser: HeadlessChromium) async throws -> InspectorPageDriver {
        let target = try await browser.call("Target.createTarget", ["url": "about:blank"])
        let targetID = try #require(target["targetId"]?.stringValue)
        let attached = try await browser.call(
            "Target.attachToTarget",
            ["targetId": .string(targetID), "flatten": true]
        )
        let page = try #require(attached["sessionId"]?.stringValue)
        _ = try await browser.call("Page.enable", session: page)
        _ = try await browser.call("Page.navigate", ["url": .string(url)], session: page)
        return InspectorPageDriver(browser: browser, session: page)
    }

    /// Reads `navctl inspect`'s output until the line with the page's address.
    func pageAddress(printedBy inspector: SpawnedProcess) async throws -> String {
        var printed: [String] = []
        while let line = await inspector.readOutputLine() {
            printed.append(line)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("http://127.0.0.1:") { return trimmed }
        }
        throw TimedOut(what: "navctl inspect to print its address; it printed:\n\(printed.joined(separator: "\n"))")
    }
}
