import Foundation

/// The plugins a daemon under test loads: the example plugins as `make build` staged them, plus test fixtures, in a
/// directory of the test's own that it may change.
package enum TestPlugins {
    /// A fixture that `navhost-plugin-tool stage` could not stage.
    package struct StagingFailed: Error, CustomStringConvertible {
        package var description: String
    }

    /// The staged example plugins.
    package static let examples = ["Home", "Products", "Settings", "UserProfile"]

    /// A fresh plugin directory holding the example plugins (links to the staged ones) and the fixture plugins
    /// `fixtures` (folders of `Tests/Fixtures`, like `StallPlugin`).
    package static func directory(fixtures: [String] = []) async throws -> String {
        let directory = try TestPaths.temporaryDirectory() + "/plugins"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in examples {
            try FileManager.default.createSymbolicLink(
                atPath: "\(directory)/\(name)",
                withDestinationPath: "\(DaemonProcess.examplePlugins)/\(name)"
            )
        }
        for fixture in fixtures { try await stageFixture(fixture, into: directory) }
        return directory
    }

    /// Stages the fixture plugin in `Tests/Fixtures/<fixture>` into `directory` the way `make build` stages the
    /// example plugins: with `navhost-plugin-tool stage`, which writes its manifest from its `plugin.json` and its
    /// built library.
    package static func stageFixture(_ fixture: String, into directory: String) async throws {
        let result = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            [
                "stage", "--build-dir", TestPaths.buildDirectory, "--output", directory,
                "\(TestPaths.packageRoot)/Tests/Fixtures/\(fixture)",
            ]
        )
        guard result.status == 0 else {
            throw StagingFailed(description: "navhost-plugin-tool stage \(fixture): \(result.errors)")
        }
    }

    /// Replaces the link to the example plugin `name` in `directory` by a copy of its staged files, which the test
    /// may then change.
    package static func copyExample(_ name: String, in directory: String) throws {
        let staged = "\(DaemonProcess.examplePlugins)/\(name)"
        try FileManager.default.removeItem(atPath: "\(directory)/\(name)")
        try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: staged) {
            try FileManager.default.copyItem(atPath: "\(staged)/\(file)", toPath: "\(directory)/\(name)/\(file)")
        }
    }

    /// Writes a wrong SHA-256 (64 times `digit`) into the manifest of the plugin `name` in `directory`, a copy
    /// (``copyExample(_:in:)``): the daemon then refuses its library with `checksumMismatch`.
    package static func breakChecksum(of name: String, in directory: String, digit: Character = "0") throws {
        let manifest = "\(directory)/\(name)/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        guard let digest = text.firstRange(of: /"sha256" *: *"[0-9a-f]{64}"/) else {
            throw StagingFailed(description: "\(manifest) has no sha256")
        }
        try text.replacingCharacters(in: digest, with: #""sha256": ""# + String(repeating: digit, count: 64) + "\"")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
    }
}
