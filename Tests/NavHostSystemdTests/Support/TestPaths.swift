import Foundation

/// Where the package and its build products are, seen from a running test.
enum TestPaths {
    /// The build folder: `NAVHOST_BUILD_DIR` when set, otherwise the folder of the running test bundle.
    static var buildDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["NAVHOST_BUILD_DIR"] { return configured }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The package's root folder (the one holding `Package.swift`).
    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The probe executable that stands in for the daemon.
    static var notifyProbe: String { "\(buildDirectory)/NotifyProbe" }
}
