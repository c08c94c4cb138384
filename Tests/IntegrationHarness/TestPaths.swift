import Foundation

/// Where things are, seen from a running test.
package enum TestPaths {
    /// The package's root folder, derived from this file's path.
    package static let packageRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
            .path
    }()

    /// The build folder: `NAVHOST_BUILD_DIR` when set, otherwise the folder of the test bundle being run.
    package static var buildDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["NAVHOST_BUILD_DIR"] { return configured }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The path of the shared library SwiftPM built for product `name`.
    package static func builtLibrary(_ name: String) -> String {
        "\(buildDirectory)/lib\(name).so"
    }

    /// The plugins folder `make build` stages the example plugins into: `<build>/plugins`. When the build stages other
    /// plugins there too (a feature `make new-feature` added to the package), a folder of copies of the examples
    /// alone, made once per test process: what the suite expects of the staged plugins is the examples'.
    package static var stagedPlugins: String { ExamplePluginsFolder.path }

    /// The path of an executable the package built.
    package static func builtExecutable(_ name: String) -> String {
        "\(buildDirectory)/\(name)"
    }

    /// The Python of the project's `.venv`, where `scripts/install-deps.sh` installs the `varlink` package.
    package static var venvPython: String { "\(packageRoot)/.venv/bin/python" }

    /// A fresh socket path, short enough for `sockaddr_un`: in the temporary folder, `TMPDIR` when set (`make test`
    /// sets one per run, of 25 characters).
    package static func socketPath() -> String {
        "\(FileManager.default.temporaryDirectory.path)/navhost-test-\(getpid())-\(SocketCounter.next()).sock"
    }

    /// A fresh, empty temporary directory.
    package static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }
}

/// The example plugins as the build staged them, alone in their folder.
private enum ExamplePluginsFolder {
    static let path: String = {
        let files = FileManager.default
        let staged = "\(TestPaths.buildDirectory)/plugins"
        let others = ((try? files.contentsOfDirectory(atPath: staged)) ?? []).filter { name in
            !name.hasPrefix(".") && !TestPlugins.examples.contains(name)
        }
        guard !others.isEmpty else { return staged }
        let copy = files.temporaryDirectory.appendingPathComponent("navhost-test-examples-\(getpid())").path
        do {
            try? files.removeItem(atPath: copy)
            try files.createDirectory(atPath: copy, withIntermediateDirectories: true)
            for name in TestPlugins.examples {
                try files.copyItem(atPath: "\(staged)/\(name)", toPath: "\(copy)/\(name)")
            }
        } catch {
            fatalError("cannot copy the staged example plugins from \(staged) to \(copy): \(error)")
        }
        return copy
    }()
}

private enum SocketCounter {
    nonisolated(unsafe) private static var value = 0
    private static let lock = NSLock()

    static func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
