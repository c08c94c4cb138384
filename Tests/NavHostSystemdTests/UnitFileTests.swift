import Foundation
import IntegrationHarness
import Testing

/// The files in `systemd/`, installed by `make install-files` into a scratch root and checked by systemd's own tools.
@Suite("The systemd units and configuration files")
struct UnitFileTests {
    /// A root tree holding what `make install-files` installs, plus what the units refer to on this host.
    private struct InstalledRoot {
        let directory: TemporaryDirectory
        var path: String { directory.path }

        init() async throws {
            directory = try TemporaryDirectory()
            let make = try await run(
                "/usr/bin/make",
                installArguments(destination: directory.path)
            )
            #expect(make.status == 0, "make install-files: \(make.errorOutput)")
            // The units need systemd's own targets and /bin/kill (ExecReload=) in the root they are checked in.
            let units = "\(directory.path)/usr/lib/systemd/system"
            for unit in try FileManager.default.contentsOfDirectory(atPath: "/lib/systemd/system")
            where !FileManager.default.fileExists(atPath: "\(units)/\(unit)") {
                try FileManager.default.copyItem(atPath: "/lib/systemd/system/\(unit)", toPath: "\(units)/\(unit)")
            }
            try FileManager.default.copyItem(atPath: "/bin/kill", toPath: "\(directory.path)/usr/bin/kill")
            try FileManager.default.createSymbolicLink(atPath: "\(directory.path)/bin", withDestinationPath: "usr/bin")
            try FileManager.default.createSymbolicLink(atPath: "\(directory.path)/lib", withDestinationPath: "usr/lib")
            try FileManager.default.createDirectory(atPath: "\(directory.path)/etc", withIntermediateDirectories: true)
        }
    }

    @Test("systemd-analyze verify accepts the installed units and prints nothing on stderr")
    func verify() async throws {
        let root = try await InstalledRoot()
        defer { root.directory.remove() }
        let result = try await run(
            "/usr/bin/systemd-analyze",
            ["verify", "--root=\(root.path)", "navhostd.socket", "navhostd.service"]
        )
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
    }

    @Test("systemd-analyze security rates navhostd.service at an exposure of 1.0 or less")
    func exposure() async throws {
        let root = try await InstalledRoot()
        defer { root.directory.remove() }
        let result = try await run(
            "/usr/bin/systemd-analyze",
            ["security", "--offline=true", "--root=\(root.path)", "navhostd.service"]
        )
        let line = try #require(
            result.output.split(separator: "\n").first { $0.contains("Overall exposure level for navhostd.service") },
            "\(result.output)\(result.errorOutput)"
        )
        let figure = try #require(
            line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) },
            "\(line)"
        )
        #expect(figure <= 1.0, "\(line)")
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
    }

    @Test("sysusers.d creates the navhost user and group; tmpfiles.d creates its directories")
    func sysusersAndTmpfiles() async throws {
        let root = try await InstalledRoot()
        defer { root.directory.remove() }
        let sysusers = try await run(
            "/usr/bin/systemd-sysusers",
            ["--root=\(root.path)", "\(root.path)/usr/lib/sysusers.d/navhost.conf"]
        )
        #expect(sysusers.status == 0, "\(sysusers.errorOutput)")
        let passwd = try String(contentsOfFile: "\(root.path)/etc/passwd", encoding: .utf8)
        let group = try String(contentsOfFile: "\(root.path)/etc/group", encoding: .utf8)
        let users = passwd.split(separator: "\n")
        #expect(users.contains { $0.hasPrefix("navhost:x:") && $0.hasSuffix(":/usr/sbin/nologin") }, "\(passwd)")
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("navhost:x:") })

        let tmpfiles = try await run(
            "/usr/bin/systemd-tmpfiles",
            ["--root=\(root.path)", "--create", "\(root.path)/usr/lib/tmpfiles.d/navhost.conf"]
        )
        #expect(tmpfiles.status == 0, "\(tmpfiles.errorOutput)")
        var state = stat()
        #expect(stat("\(root.path)/var/lib/navhost", &state) == 0)
        #expect(state.st_mode & 0o777 == 0o700)
        #expect(stat("\(root.path)/run/navhost", &state) == 0)
        #expect(state.st_mode & 0o777 == 0o755)
    }

    @Test("make install-files puts the daemon, its SDK library and the units where the units look for them")
    func installLayout() async throws {
        let root = try await InstalledRoot()
        defer { root.directory.remove() }
        let manager = FileManager.default
        #expect(manager.isExecutableFile(atPath: "\(root.path)/usr/lib/navhost/navhostd"))
        #expect(manager.fileExists(atPath: "\(root.path)/usr/lib/navhost/libNavHostKit.so"))
        let link = try manager.destinationOfSymbolicLink(atPath: "\(root.path)/usr/bin/navhostd")
        #expect(link == "../lib/navhost/navhostd")
        #expect(manager.fileExists(atPath: "\(root.path)/usr/lib/navhost/plugins"))
        #expect(manager.fileExists(atPath: "\(root.path)/usr/lib/systemd/system/navhostd.service"))
        #expect(manager.fileExists(atPath: "\(root.path)/usr/lib/systemd/system/navhostd.socket"))

        // Executed through its symlink, the daemon finds libNavHostKit.so beside its real path ($ORIGIN). The dynamic
        // loader lists what it mapped and stops before main (ldd would not resolve $ORIGIN through the symlink).
        let libraries = try await run(
            "\(root.path)/usr/bin/navhostd",
            [],
            environment: ["LD_TRACE_LOADED_OBJECTS": "1"]
        )
        let expected = "libNavHostKit.so => \(root.path)/usr/lib/navhost/libNavHostKit.so"
        #expect(libraries.output.contains(expected), "\(libraries.output)")
    }

    @Test("make uninstall takes back what make install-files put, and leaves the configuration; the SDK's alike")
    func uninstall() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let make = { (target: String) in try await Self.make(target, into: directory.path) }
        #expect(try await make("install-files").status == 0)
        #expect(try Self.files(under: directory.path).count > 20)
        #expect(try await make("uninstall").status == 0)
        #expect(try Self.files(under: directory.path) == ["etc/navhost/navhostd.conf"], "an edited configuration stays")

        try FileManager.default.removeItem(atPath: "\(directory.path)/etc")
        #expect(try await make("install-sdk-files").status == 0)
        #expect(try Self.files(under: directory.path).contains("usr/lib/navhost/libNavHostTesting.so"))
        #expect(try await make("uninstall-sdk-files").status == 0)
        #expect(try Self.files(under: directory.path) == [])
    }

    @Test("make uninstall removes only the plugins make install put, and keeps one of the same name put there since")
    func uninstallKeepsOtherPlugins() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let make = { (target: String) in try await Self.make(target, into: directory.path) }
        #expect(try await make("install-files").status == 0)
        let plugins = "\(directory.path)/usr/lib/navhost/plugins"
        // Another team's build of a plugin called Settings replaces the example; another plugin sits beside them.
        try #"{"name":"Settings","note":"another team's"}"#.write(
            toFile: "\(plugins)/Settings/manifest.json",
            atomically: true,
            encoding: .utf8
        )
        try FileManager.default.createDirectory(atPath: "\(plugins)/Favorites", withIntermediateDirectories: true)
        try "{}".write(toFile: "\(plugins)/Favorites/manifest.json", atomically: true, encoding: .utf8)

        let uninstall = try await make("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.errorOutput)")
        #expect(uninstall.output.contains("keeps \(plugins)/Settings"), "\(uninstall.output)")
        let left = try Self.files(under: directory.path).filter { !$0.hasPrefix("usr/lib/navhost/plugins/Settings/") }
        #expect(
            left == ["etc/navhost/navhostd.conf", "usr/lib/navhost/plugins/Favorites/manifest.json"],
            "\(left)"
        )
        #expect(FileManager.default.fileExists(atPath: "\(plugins)/Settings/manifest.json"))
        #expect(!FileManager.default.fileExists(atPath: "\(plugins)/Home"))
    }

    /// Runs `make target` of the package with `DESTDIR=destination`, on the build folder the tests use.
    private static func make(_ target: String, into destination: String) async throws -> CommandResult {
        try await run(
            "/usr/bin/make",
            [
                "-C", TestPaths.packageRoot, "--no-print-directory", target, "DESTDIR=\(destination)",
                "BUILD_DIR=\(TestPaths.buildDirectory)",
            ]
        )
    }

    /// The files and symbolic links under `root`, relative to it, sorted.
    private static func files(under root: String) throws -> [String] {
        let manager = FileManager.default
        return try manager.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            let isLink = (try? manager.destinationOfSymbolicLink(atPath: "\(root)/\(path)")) != nil
            return isLink
                || (manager.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory) && !isDirectory.boolValue)
        }.sorted()
    }

    @Test("An install under another prefix points the units at that prefix")
    func otherPrefix() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let make = try await run(
            "/usr/bin/make",
            installArguments(destination: directory.path) + ["PREFIX=/usr/local"]
        )
        #expect(make.status == 0, "\(make.errorOutput)")
        let service = try String(
            contentsOfFile: "\(directory.path)/usr/local/lib/systemd/system/navhostd.service",
            encoding: .utf8
        )
        #expect(service.contains("\"NAVHOSTD_OPTIONS=--socket /run/navhost/io.navhost "))
        #expect(service.contains(" --plugins /usr/local/lib/navhost/plugins "))
        // One list of options, for the daemon and the reload's check of its configuration.
        #expect(service.contains("\nExecStart=/usr/local/bin/navhostd $NAVHOSTD_OPTIONS\n"))
        #expect(service.contains("\nExecReload=/usr/local/bin/navhostd --check-config $NAVHOSTD_OPTIONS\n"))
        #expect(service.contains("\nExecReload=/bin/kill -s HUP $MAINPID\n"))
    }
}

/// The arguments of `make install-files` into `destination`, from the build folder the tests run from.
func installArguments(destination: String) -> [String] {
    [
        "-C", TestPaths.packageRoot, "--no-print-directory", "install-files", "DESTDIR=\(destination)",
        "BUILD_DIR=\(TestPaths.buildDirectory)",
    ]
}

/// What a finished command printed, and how it ended.
struct CommandResult: Sendable {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs `executable` to completion and collects both outputs.
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws
    -> CommandResult
{
    try await offThePool { try runBlocking(executable, arguments, environment: environment) }
}

private func runBlocking(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String]?
) throws -> CommandResult {
    let process = Process()
    process.environment = environment
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errorOutput = Pipe()
    process.standardOutput = output
    process.standardError = errorOutput
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to their end before waiting, so a chatty command cannot fill one and block.
    let errorData = ErrorDrain(errorOutput.fileHandleForReading)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        output: String(decoding: outputData, as: UTF8.self),
        errorOutput: String(decoding: errorData.wait(), as: UTF8.self)
    )
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorDrain: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
