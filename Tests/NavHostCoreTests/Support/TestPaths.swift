import Foundation

/// Where the package's build products are, seen from a running test.
enum TestPaths {
    /// The build folder: `NAVHOST_BUILD_DIR` when set, otherwise the folder of the test bundle being run.
    static var buildDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["NAVHOST_BUILD_DIR"] { return configured }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().path
    }

    /// The path of the shared library SwiftPM built for product `name`.
    static func builtLibrary(_ name: String) -> String {
        "\(buildDirectory)/lib\(name).so"
    }

    /// The plugins folder `make build` stages the example plugins into: `<build>/plugins`.
    static var stagedPlugins: String {
        "\(buildDirectory)/plugins"
    }
}
