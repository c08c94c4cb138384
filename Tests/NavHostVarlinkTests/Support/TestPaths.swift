import Foundation

/// Where things are, seen from a running test.
enum TestPaths {
    /// The package's root folder, derived from this file's path.
    static let packageRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // NavHostVarlinkTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
            .path
    }()

    /// The build folder: `NAVHOST_BUILD_DIR` when set, otherwise the folder of the test bundle being run.
    static var buildDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["NAVHOST_BUILD_DIR"] { return configured }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The Python of the project's `.venv`, where `scripts/install-deps.sh` installs the `varlink` package.
    static var venvPython: String { "\(packageRoot)/.venv/bin/python" }

    /// A fresh socket path, short enough for `sockaddr_un`.
    static func socketPath() -> String {
        let counter = SocketCounter.next()
        return "/tmp/navhost-varlink-\(getpid())-\(counter).sock"
    }
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
