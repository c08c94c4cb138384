import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// Failures: one line on standard error naming the Varlink error and its parameters, and an exit code per kind.
@Suite("navctl errors and exit codes")
struct NavctlErrorTests {
    @Test(
        "An error reply exits with 2, or 3 when the intent failed, and names the error and its parameters",
        arguments: [
            (
                "error-route-not-found", ["navigate", "products.lst"],
                "io.navhost.Navigation.Navigate", "io.navhost.Navigation.RouteNotFound",
                ["route": "products.lst"], Int32(2)
            ),
            (
                "error-invalid-route-parameters", ["navigate", "products.detail"],
                "io.navhost.Navigation.Navigate", "io.navhost.Navigation.InvalidRouteParameters",
                ["route": "products.detail", "reason": "productID is missing"], 2
            ),
            (
                "error-cannot-pop-root", ["pop"],
                "io.navhost.Navigation.Pop", "io.navhost.Navigation.CannotPopRoot", [:], 2
            ),
            (
                "error-intent-not-found", ["send", "onTappedNothing"],
                "io.navhost.Navigation.Send", "io.navhost.Navigation.IntentNotFound",
                ["intent": "onTappedNothing", "intents": ["onTappedProducts", "onTappedSettings"]], 2
            ),
            (
                "error-permission-denied", ["pop"],
                "io.navhost.Navigation.Pop", "org.varlink.service.PermissionDenied", [:], 2
            ),
            (
                "error-intent-failed", ["send", "onTappedRetry"],
                "io.navhost.Navigation.Send", "io.navhost.Navigation.IntentFailed",
                ["screen": "s2", "intent": "onTappedRetry"], 3
            ),
            (
                "error-intent-timed-out", ["send", "onChangedFilter", "text=lamp"],
                "io.navhost.Navigation.Send", "io.navhost.Navigation.IntentTimedOut",
                ["screen": "s2", "intent": "onChangedFilter"], 3
            ),
            (
                "error-method-not-found", ["stack"],
                "io.navhost.Navigation.Stack", "org.varlink.service.MethodNotFound",
                ["method": "io.navhost.Navigation.Stack"], 76
            ),
            (
                "error-plugin-not-found", ["plugins", "reload", "Nope"],
                "io.navhost.Plugins.Reload", "io.navhost.Plugins.PluginNotFound", ["name": "Nope"], 2
            ),
            (
                "error-plugin-refused", ["plugins", "load", "/srv/navhost/Broken"],
                "io.navhost.Plugins.Load", "io.navhost.Plugins.PluginRefused",
                ["code": "checksumMismatch", "message": "the library's SHA-256 does not match the manifest"], 2
            ),
            (
                "error-plugin-permission-denied", ["plugins", "unload", "Products"],
                "io.navhost.Plugins.Unload", "org.varlink.service.PermissionDenied", [:], 2
            ),
            (
                "error-unknown-error", ["stack", "--json"],
                "io.navhost.Navigation.Stack", "io.navhost.Navigation.SomethingNew", ["detail": [1, 2]], 2
            ),
        ] as [(String, [String], String, String, JSONObject, Int32)]
    )
    func errorReply(
        name: String,
        arguments: [String],
        method: String,
        error: String,
        parameters: JSONObject,
        status: Int32
    ) async throws {
        let service = try await ScriptedNavigationService.start([method: .error(error, parameters)])
        let run = try await Navctl.run(arguments + ["--socket", service.socketPath])
        await service.stop()
        #expect(run.status == status)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("Error: \(error)"))
        #expect(run.errors.split(separator: "\n").count == 1)
        try Snapshots.assertMatches(run, named: name, replacing: [service.socketPath: "<socket>"])
    }

    @Test("Control characters a server sent in an error (an escape sequence, a bell) are shown escaped, not sent raw")
    func controlCharactersInAnError() async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Navigate": .error(
                "io.navhost.Navigation.RouteNotFound",
                ["route": "\u{1B}[31mred\u{1B}[0m\u{07}\u{9B}2J"]
            )
        ])
        let run = try await Navctl.run(["navigate", "x", "--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 2)
        #expect(!run.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(run.errors)")
        #expect(!run.errors.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) }, "\(run.errors)")
        #expect(run.errors.contains("\\u{1B}[31mred\\u{1B}[0m\\u{7}\\u{9B}2J"), "\(run.errors)")
    }

    @Test("A reply that does not match the interface exits with 76")
    func protocolError() async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Pop": .reply(["revision": "nine", "removed": []])
        ])
        let run = try await Navctl.run(["pop", "--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 76)
        try Snapshots.assertMatches(run, named: "error-protocol", replacing: [service.socketPath: "<socket>"])
    }

    @Test(
        "A recording that cannot be read exits with 1; one that does not read as a recording with 2, InvalidRecording"
    )
    func unreadableRecording() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // No daemon: the file is checked before one is asked.
        let socket = ["--socket", "\(directory)/io.navhost"]

        let missing = try await Navctl.run(["replay", "\(directory)/none.navrec"] + socket)
        #expect(missing.status == 1)
        #expect(
            missing.errors == "Error: cannot read \(directory)/none.navrec: open failed: No such file or directory\n"
        )

        try "not a recording\n".write(toFile: "\(directory)/garbage.navrec", atomically: true, encoding: .utf8)
        let garbage = try await Navctl.run(["replay", "\(directory)/garbage.navrec"] + socket)
        #expect(garbage.status == 2)
        #expect(garbage.errors.hasPrefix("Error: InvalidRecording: \(directory)/garbage.navrec: line 1 is not JSON"))
        #expect(garbage.errors.split(separator: "\n").count == 1, "one line")
    }

    @Test("A socket path with no socket exits with 69: the daemon is unreachable")
    func missingSocket() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try await Navctl.run(["stack", "--socket", "\(directory)/io.navhost"])
        #expect(run.status == 69)
        #expect(run.output.isEmpty)
        try Snapshots.assertMatches(run, named: "error-no-socket", replacing: [directory: "<tmp>"])
    }

    @Test(
        "A daemon unreachable at the default socket gets a hint naming --socket and NAVHOST_SOCKET; at a named one, none",
        .enabled(if: getuid() == 0, "runs navctl as nobody (its default socket is under XDG_RUNTIME_DIR): needs root")
    )
    func unreachableAtTheDefaultSocket() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A host where the system daemon listens gets that socket named instead.
        var status = stat()
        let hint =
            stat("/run/navhost/io.navhost", &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
            ? "hint: that is the default socket, your own daemon's; the system daemon's is /run/navhost/io.navhost: "
                + "give navctl --socket /run/navhost/io.navhost or set NAVHOST_SOCKET=/run/navhost/io.navhost"
            : "hint: that is the default socket; for a daemon listening elsewhere, give navctl --socket PATH or "
                + "set NAVHOST_SOCKET=PATH"
        let atDefault = try await Navctl.run(["stack"], environment: ["XDG_RUNTIME_DIR": directory], as: .nobody)
        #expect(atDefault.status == 69)
        let lines = atDefault.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(atDefault.errors)")
        #expect(lines.first?.hasPrefix("Error: daemonUnreachable: ") == true, "\(atDefault.errors)")
        #expect(lines.first?.contains("\(directory)/navhost/io.navhost") == true, "\(atDefault.errors)")
        #expect(lines.last == hint)

        let named = try await Navctl.run(
            ["stack"],
            environment: ["XDG_RUNTIME_DIR": directory, "NAVHOST_SOCKET": "\(directory)/io.navhost"],
            as: .nobody
        )
        #expect(named.status == 69)
        #expect(!named.errors.contains("hint:"), "\(named.errors)")
    }

    @Test("A socket path that names a plain file exits with 69 and says it is not a socket")
    func plainFileForSocket() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/not-a-socket"
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Navctl.run(["stack", "--socket", path])
        #expect(run.status == 69)
        #expect(run.errors == "Error: daemonUnreachable: \(path) is not a socket\n")
    }

    @Test("A socket nobody listens on exits with 69: connection refused")
    func refusedConnection() async throws {
        let service = try await ScriptedNavigationService.start()
        let path = service.socketPath
        await service.stop()
        // A socket file left behind by a daemon that died: bound, not listening.
        let descriptor = try boundUnixSocket(at: path)
        defer {
            close(descriptor)
            unlink(path)
        }

        let run = try await Navctl.run(["sessions", "--socket", path])

        #expect(run.status == 69)
        try Snapshots.assertMatches(run, named: "error-connection-refused", replacing: [path: "<socket>"])
    }

    @Test("A daemon that takes the connection and never answers is given up on after --timeout (exit 69)")
    func noAnswer() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/io.navhost"
        // Listening, never accepting: the kernel takes the connection and the call, and nothing answers.
        let descriptor = try boundUnixSocket(at: path)
        defer { close(descriptor) }
        try #require(listen(descriptor, 8) == 0)

        let run = try await Navctl.run(["stack", "--socket", path, "--timeout", "0.5"])
        #expect(run.status == 69)
        #expect(run.output.isEmpty)
        #expect(run.errors == "Error: daemonUnreachable: no answer from \(path) within 0.5 s (--timeout)\n")
        // A watch waits as long for its first reply (it hung until killed): only once answered is it followed.
        for watch in [["watch"], ["plugins", "watch"]] {
            let run = try await Navctl.run(watch + ["--socket", path, "--timeout", "0.5"], limit: .seconds(20))
            #expect(run.status == 69, "\(watch)")
            #expect(run.errors == "Error: daemonUnreachable: no answer from \(path) within 0.5 s (--timeout)\n")
        }

        for value in ["-1", "1e20", "nan"] {
            let refused = try await Navctl.run(["stack", "--socket", path, "--timeout", value])
            #expect(refused.status == 64)
            #expect(refused.errors.hasPrefix("Error: --timeout takes seconds from 0 to 86400\n"), "\(value)")
        }
    }
}
