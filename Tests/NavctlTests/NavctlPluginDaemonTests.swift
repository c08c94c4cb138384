import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// `navctl plugins load|reload|unload` against the real `navhostd`, loading a copy of the example plugins of the
/// test's own (Products copied, so that a test can break it).
@Suite(
    "navctl plugins against navhostd",
    .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
)
struct NavctlPluginDaemonTests {
    /// Runs `body` with the private plugin directory and a daemon loading it (with `arguments` added), then stops
    /// the daemon and removes the directory. The daemon's session `main` starts at `settings.main`, so that Home,
    /// which depends on every other example, may be unloaded. It follows its plugins folder only when `watching`.
    static func withPrivatePlugins(
        watching: Bool = false,
        arguments: [String] = [],
        _ body: (String, DaemonProcess) async throws -> Void
    ) async throws {
        let directory = try await TestPlugins.directory()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        try TestPlugins.copyExample("Products", in: directory)
        let arguments = ["--session", "main=settings.main"] + (watching ? [] : ["--no-watch-plugins"]) + arguments
        try await NavctlDaemonTests.withDaemon(plugins: directory, arguments: arguments) { daemon in
            try await body(directory, daemon)
        }
    }

    @Test("reload, unload and load (a relative path) change the running daemon and say what they did")
    func reloadUnloadLoad() async throws {
        try await Self.withPrivatePlugins { directory, daemon in
            let socket = ["--socket", daemon.socketPath]
            let placeholders = [
                daemon.socketPath: "<socket>", daemon.stateDirectory: "<state>", directory: "<plugins>",
            ]

            let reload = try await Navctl.run(["plugins", "reload", "Products"] + socket)
            #expect(reload.status == 0, "\(reload.errors)")
            try Snapshots.assertMatches(reload, named: "daemon-plugins-reload", replacing: placeholders)
            let again = try await Navctl.run(["plugins", "reload", "Products", "--json"] + socket)
            let plugin = try JSONParser().parse(again.output)["plugin"]
            #expect(plugin?["state"] == "loaded")
            #expect(plugin?["path"]?.stringValue == "\(daemon.stateDirectory)/plugin-images/Products-3.so")
            // A new version of the same library (plugin.json's version raised, the code as it was): a new build,
            // not the one that served before.
            let manifest = "\(directory)/Products/manifest.json"
            let text = try String(contentsOfFile: manifest, encoding: .utf8)
            try text.replacingOccurrences(of: "\"version\": \"1.0.0\"", with: "\"version\": \"1.0.1\"")
                .write(toFile: manifest, atomically: true, encoding: .utf8)
            let bumped = try await Navctl.run(["plugins", "reload", "Products"] + socket)
            #expect(bumped.status == 0, "\(bumped.errors)")
            #expect(
                bumped.output.hasPrefix("reloaded Products 1.0.0 → 1.0.1 from ")
                    && bumped.output.hasSuffix(
                        "; the build in \(directory)/Products, with the library that served before (its manifest is new)\n"
                    ),
                "\(bumped.output)"
            )

            let unload = try await Navctl.run(["plugins", "unload", "Home"] + socket)
            #expect(unload.status == 0, "\(unload.errors)")
            #expect(unload.output == "unloaded Home\n")
            let list = try await Navctl.run(["plugins", "--json"] + socket)
            let loaded = try JSONParser().parse(list.output)["plugins"]?.arrayValue?.filter { $0["state"] == "loaded" }
            #expect(loaded?.compactMap { $0["name"]?.stringValue }.sorted() == ["Products", "Settings", "UserProfile"])
            let home = try JSONParser().parse(list.output)["plugins"]?.arrayValue?.first { $0["name"] == "Home" }
            #expect(home?["state"] == "removed", "the list says what became of it")

            let load = try await Navctl.run(["plugins", "load", "./Home"] + socket, in: directory)
            #expect(load.status == 0, "\(load.errors)")
            try Snapshots.assertMatches(load, named: "daemon-plugins-load", replacing: placeholders)
            // Loaded again, the same build: done, nothing loaded anew (it was refused as duplicateName, and every
            // plugin watch was told of a failure).
            let loadAgain = try await Navctl.run(["plugins", "load", "./Home"] + socket, in: directory)
            #expect(loadAgain.status == 0, "\(loadAgain.errors)")
            #expect(loadAgain.output == load.output, "the same image serves")
            let rows = try JSONParser().parse(try await Navctl.run(["plugins", "--json"] + socket).output)["plugins"]
            #expect(rows?.arrayValue?.filter { $0["name"] == "Home" }.count == 1, "\(String(describing: rows))")
            // Another build in a folder that serves (its version raised; Products is the test's own copy, the other
            // examples links to the staged ones): a reload's to take, and said so.
            try text.replacingOccurrences(of: "\"version\": \"1.0.0\"", with: "\"version\": \"1.0.2\"")
                .write(toFile: manifest, atomically: true, encoding: .utf8)
            let newBuild = try await Navctl.run(["plugins", "load", "./Products"] + socket, in: directory)
            #expect(newBuild.status == 2)
            #expect(newBuild.errors.contains("navctl plugins reload Products"), "\(newBuild.errors)")
            let navigate = try await Navctl.run(["navigate", "home.main"] + socket)
            #expect(navigate.status == 0, "the loaded plugin serves its routes: \(navigate.errors)")
        }
    }

    @Test("plugins wait says whether the daemon took a build copied into its plugins folder: 0, 2 refused, 1 elsewhere")
    func waitForACopiedBuild() async throws {
        try await Self.withPrivatePlugins(watching: true) { directory, daemon in
            let socket = ["--socket", daemon.socketPath]
            let served = try await Navctl.run(["plugins", "wait", "\(directory)/Products"] + socket)
            #expect(served.status == 0, "\(served.errors)")
            // It served before navctl asked, loaded after its folder was put in place: the plugin says it.
            #expect(served.output.hasPrefix("loaded Products 1.0.0 from "), "\(served.output)")

            // A new build whose manifest does not match its library, written in by a rename.
            try TestPlugins.breakChecksum(of: "Products", in: directory)
            let refused = try await Navctl.run(
                ["plugins", "wait", "\(directory)/Products", "--timeout", "30"] + socket
            )
            #expect(refused.status == 2, "\(refused.output) \(refused.errors)")
            #expect(refused.errors.contains("Error: refused Products: checksumMismatch: "), "\(refused.errors)")
            #expect(refused.errors.contains("; version 1.0.0 keeps serving"), "\(refused.errors)")
            // Put in place again unchanged (its change time now after the refusal), as once a cause outside the
            // build is mended: that refusal is an older install's, so it is waited for, not reported at once.
            #expect(chmod("\(directory)/Products", 0o755) == 0)
            let again = try await Navctl.run(["plugins", "wait", "\(directory)/Products", "--timeout", "1"] + socket)
            #expect(again.status == 69, "\(again.output) \(again.errors)")
            #expect(again.errors.contains("gave no answer about \(directory)/Products within 1 s"), "\(again.errors)")

            // A folder the daemon does not watch is said at once; so is a folder with no plugin.
            let elsewhere = try TestPaths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            try FileManager.default.copyItem(
                atPath: "\(DaemonProcess.examplePlugins)/Settings",
                toPath: "\(elsewhere)/Settings"
            )
            let outside = try await Navctl.run(["plugins", "wait", "\(elsewhere)/Settings"] + socket)
            #expect(outside.status == 1, "\(outside.errors)")
            #expect(outside.errors.contains("navctl plugins load \(elsewhere)/Settings"), "\(outside.errors)")
            let empty = try await Navctl.run(["plugins", "wait", elsewhere] + socket)
            #expect(empty.status == 1)
            #expect(empty.errors.contains("holds no staged plugin"), "\(empty.errors)")
        }
    }

    @Test(
        "plugins wait says at once that a daemon with no plugins yet, or one not following its folder, will not take it"
    )
    func waitWhereTheDaemonDoesNotLook() async throws {
        let elsewhere = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try FileManager.default.copyItem(
            atPath: "\(DaemonProcess.examplePlugins)/Settings",
            toPath: "\(elsewhere)/Settings"
        )
        // A daemon whose plugins folder is empty: before it said where that folder is, navctl could not tell, and
        // waited the whole --timeout for a build copied elsewhere (a new user's make install to the wrong PLUGINDIR).
        try await NavctlDaemonTests.withDaemon { daemon in
            let socket = ["--socket", daemon.socketPath]
            let list = try await Navctl.run(["plugins", "--json"] + socket)
            #expect(list.output.contains(#""watchesPluginsFolder":true"#), "\(list.output)")
            let outside = try await Navctl.run(
                ["plugins", "wait", "\(elsewhere)/Settings", "--timeout", "20"] + socket
            )
            #expect(outside.status == 1, "\(outside.errors)")
            #expect(outside.errors.contains("navctl plugins load \(elsewhere)/Settings"), "\(outside.errors)")
            // Loaded by hand from there, and a build put in place again: a Reload takes it, not the watcher.
            #expect(try await Navctl.run(["plugins", "load", "\(elsewhere)/Settings"] + socket).status == 0)
            // Put in place a few milliseconds after the Load tried it: one in the same millisecond counts as answered.
            try await Task.sleep(for: .milliseconds(50))
            #expect(chmod("\(elsewhere)/Settings", 0o755) == 0)
            let again = try await Navctl.run(["plugins", "wait", "\(elsewhere)/Settings", "--timeout", "20"] + socket)
            #expect(again.status == 1, "\(again.errors)")
            #expect(again.errors.contains("navctl plugins reload Settings takes the build in it"), "\(again.errors)")
        }
        // A daemon that does not follow its plugins folder answers for a build it serves, and says at once that it
        // takes one copied there after it started only by hand or at SIGHUP.
        try await NavctlDaemonTests.withDaemon(plugins: elsewhere, arguments: ["--no-watch-plugins"]) { daemon in
            let socket = ["--socket", daemon.socketPath]
            let served = try await Navctl.run(["plugins", "wait", "\(elsewhere)/Settings", "--timeout", "20"] + socket)
            #expect(served.status == 0, "\(served.errors)")
            try FileManager.default.copyItem(
                atPath: "\(DaemonProcess.examplePlugins)/UserProfile",
                toPath: "\(elsewhere)/UserProfile"
            )
            let unwatched = try await Navctl.run(
                ["plugins", "wait", "\(elsewhere)/UserProfile", "--timeout", "20"] + socket
            )
            #expect(unwatched.status == 1, "\(unwatched.errors)")
            #expect(unwatched.errors.contains("does not follow its plugins folder"), "\(unwatched.errors)")
            #expect(unwatched.errors.contains("navctl plugins load \(elsewhere)/UserProfile"), "\(unwatched.errors)")
        }
    }

    @Test("plugins wait answers for a serving build put in place again once the daemon checked its folder")
    func waitForTheServingBuildPutInPlaceAgain() async throws {
        try await Self.withPrivatePlugins(watching: true) { directory, daemon in
            let socket = ["--socket", daemon.socketPath]
            let source = "\(DaemonProcess.examplePlugins)/Products"
            // The build that serves, without the resource its manifest lists: what a restart would refuse.
            try TestPlugins.deploy(folder: source, as: "Products", into: directory) { incoming in
                try FileManager.default.removeItem(atPath: "\(incoming)/products.json")
            }
            let refused = try await Navctl.run(
                ["plugins", "wait", "\(directory)/Products", "--timeout", "20"] + socket
            )
            #expect(refused.status == 2, "\(refused.output) \(refused.errors)")
            #expect(
                refused.errors.contains("Error: refused Products: fileMissing: the resource products.json"),
                "\(refused.errors)"
            )
            #expect(refused.errors.contains("; version 1.0.0 keeps serving"), "\(refused.errors)")
            let listed = try await Navctl.run(["plugins", "list", "--json"] + socket)
            #expect(listed.output.contains(#""lastReloadFailure""#), "\(listed.output)")

            // Put in place whole again: the daemon's check answers, and the failure is gone.
            try TestPlugins.deploy(folder: source, as: "Products", into: directory)
            let served = try await Navctl.run(["plugins", "wait", "\(directory)/Products", "--timeout", "20"] + socket)
            #expect(served.status == 0, "\(served.output) \(served.errors)")
            // The daemon's `checked` event when navctl saw it, and the same line when the check came before.
            #expect(served.output == "checked Products 1.0.0 from \(directory)/Products\n", "\(served.output)")
            let relisted = try await Navctl.run(["plugins", "list", "--json"] + socket)
            #expect(!relisted.output.contains(#""lastReloadFailure""#), "\(relisted.output)")
        }
    }

    @Test("plugins wait --removed says whether the daemon unloaded the plugin of a folder taken out: 0, 2 refused")
    func waitForARemovedFolder() async throws {
        let directory = try await TestPlugins.directory()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        try TestPlugins.makeHardDependency(of: "Home", on: "Settings", in: directory)
        try await NavctlDaemonTests.withDaemon(plugins: directory, arguments: ["--session", "main=home.main"]) {
            daemon in
            let socket = ["--socket", daemon.socketPath]
            let files = FileManager.default
            let present = try await Navctl.run(["plugins", "wait", "--removed", "\(directory)/Products"] + socket)
            #expect(present.status == 1, "\(present.output) \(present.errors)")
            #expect(present.errors.contains("is still there"), "\(present.errors)")

            try files.moveItem(atPath: "\(directory)/Products", toPath: "\(directory)/.Products.away")
            let removed = try await Navctl.run(
                ["plugins", "wait", "--removed", "\(directory)/Products", "--timeout", "20"] + socket
            )
            #expect(removed.status == 0, "\(removed.output) \(removed.errors)")
            #expect(removed.output.hasPrefix("removed Products 1.0.0 from \(directory)/Products"), "\(removed.output)")
            // Asked again, after the daemon removed it: the same line, from the plugin the daemon lists as removed.
            let again = try await Navctl.run(["plugins", "wait", "--removed", "\(directory)/Products"] + socket)
            #expect(again.status == 0, "\(again.output) \(again.errors)")
            #expect(again.output == "removed Products 1.0.0 from \(directory)/Products\n", "\(again.output)")
            let never = try await Navctl.run(["plugins", "wait", "--removed", "\(directory)/Weather"] + socket)
            #expect(never.status == 0, "\(never.output) \(never.errors)")
            #expect(never.output == "nothing serves from \(directory)/Weather\n", "\(never.output)")

            // Home cannot work without Settings: the daemon keeps it serving, and says so.
            try files.moveItem(atPath: "\(directory)/Settings", toPath: "\(directory)/.Settings.away")
            let refused = try await Navctl.run(
                ["plugins", "wait", "--removed", "\(directory)/Settings", "--timeout", "20"] + socket
            )
            #expect(refused.status == 2, "\(refused.output) \(refused.errors)")
            let reason = "Error: refused to remove Settings: needed by Home; version 1.0.0 keeps serving"
            #expect(refused.errors.contains(reason), "\(refused.errors)")
            try files.moveItem(atPath: "\(directory)/.Settings.away", toPath: "\(directory)/Settings")

            let nothing = try await Navctl.run(["plugins", "wait", "--removed", "\(directory)/Nothing"] + socket)
            #expect(nothing.status == 0, "\(nothing.errors)")
            #expect(nothing.output.hasPrefix("nothing serves from \(directory)/Nothing"), "\(nothing.output)")
        }
    }

    @Test("A name nothing loaded has, a broken build and a plugin others need are refused with exit code 2")
    func refusals() async throws {
        try await Self.withPrivatePlugins { directory, daemon in
            let socket = ["--socket", daemon.socketPath]
            for command in ["reload", "unload"] {
                let missing = try await Navctl.run(["plugins", command, "Nope"] + socket)
                #expect(missing.status == 2)
                #expect(missing.output.isEmpty)
                #expect(
                    missing.errors
                        == #"Error: io.navhost.Plugins.PluginNotFound {"name":"Nope"}: no loaded plugin is named "Nope""#
                        + "\n"
                )
            }

            try TestPlugins.breakChecksum(of: "Products", in: directory)
            let broken = try await Navctl.run(["plugins", "reload", "Products"] + socket)
            #expect(broken.status == 2)
            #expect(broken.output.isEmpty)
            // Every parameter, message included, as the daemon sent it; the message once: the words leave it to them.
            let refusal = try #require(
                broken.errors.wholeMatch(
                    of:
                        /Error: io\.navhost\.Plugins\.PluginRefused (\{"code":"checksumMismatch","message":.+\}): refused \(checksumMismatch\)\n/
                ),
                "\(broken.errors)"
            )
            let parameters = try JSONParser().parse(String(refusal.1))
            let message = try #require(parameters["message"]?.stringValue)
            #expect(message.contains("SHA-256"), "\(message)")
            #expect(broken.errors.ranges(of: message).count == 1, "\(broken.errors)")
            let list = try await Navctl.run(["plugins", "list", "--json"] + socket)
            let products = try JSONParser().parse(list.output)["plugins"]?.arrayValue?.first {
                $0["name"] == "Products"
            }
            #expect(products?["state"] == "loaded", "the old build keeps serving")
            #expect(products?["lastReloadFailure"]?["code"] == "checksumMismatch")

            // Home's new build cannot work without Products.
            try TestPlugins.makeHardDependency(of: "Home", on: "Products", in: directory)
            #expect(try await Navctl.run(["plugins", "reload", "Home"] + socket).status == 0)
            let needed = try await Navctl.run(["plugins", "unload", "Products"] + socket)
            #expect(needed.status == 2)
            let inUse = #"Error: io.navhost.Plugins.PluginRefused {"code":"inUse","message":"#
            #expect(needed.errors.hasPrefix(inUse), "\(needed.errors)")
            let nowhere = try await Navctl.run(["plugins", "load", "\(directory)/Nowhere"] + socket)
            #expect(nowhere.status == 2)
            #expect(nowhere.errors.hasPrefix("Error: io.navhost.Plugins.PluginRefused"), "\(nowhere.errors)")
        }
    }

    @Test(
        "A user who may not control is refused with PermissionDenied (exit code 2); listing stays open to them",
        .enabled(if: getuid() == 0, "runs navctl as nobody, which needs root")
    )
    func permissionDenied() async throws {
        try await Self.withPrivatePlugins(arguments: ["--socket-mode", "0666"]) { directory, daemon in
            let socket = ["--socket", daemon.socketPath]
            for arguments in [["unload", "Home"], ["reload", "Products"], ["load", "\(directory)/Products"]] {
                let denied = try await Navctl.run(["plugins"] + arguments + socket, as: .nobody)
                #expect(denied.status == 2, "\(arguments)")
                #expect(denied.output.isEmpty)
                #expect(
                    denied.errors
                        == "Error: org.varlink.service.PermissionDenied: the daemon does not allow this user to make that "
                        + "call (control calls need root, the navhost group, or a user or group navhostd.conf's control.users or "
                        + "control.groups names)\n",
                    "\(arguments)"
                )
            }
            let list = try await Navctl.run(["plugins"] + socket, as: .nobody)
            #expect(list.status == 0, "\(list.errors)")
            let products = list.output.split(separator: "\n").first { $0.hasPrefix("Products ") }
            #expect(products?.split(separator: " ").dropFirst().first == "1.0.0", "\(list.output)")
        }
    }
}
