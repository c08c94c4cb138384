import Foundation

/// Where the package and its build products are, seen from a running test.
enum ToolTestPaths {
    /// The build folder: `NAVHOST_BUILD_DIR` when set, otherwise the folder of the test bundle being run.
    static var buildDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["NAVHOST_BUILD_DIR"] { return configured }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The package's root folder, found from this file's path.
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // NavHostPluginToolsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .path

    /// A new, empty folder with a unique name under the system's temporary folder.
    static func makeTemporaryDirectory() throws -> String {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/navhost-tool-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: created)
    }
}
