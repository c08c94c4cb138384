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
        for name in examples { try linkExample(name, in: directory) }
        for fixture in fixtures { try await stageFixture(fixture, into: directory) }
        return directory
    }

    /// Puts the staged example plugin `name` into `directory` as a symbolic link to it, as ``directory(fixtures:)``
    /// does for each: a plugin dropped into a running daemon's folder.
    package static func linkExample(_ name: String, in directory: String) throws {
        try FileManager.default.createSymbolicLink(
            atPath: "\(directory)/\(name)",
            withDestinationPath: "\(DaemonProcess.examplePlugins)/\(name)"
        )
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

    /// Makes `dependency` a hard dependency of the plugin `name` in `directory` by rewriting its manifest (its
    /// library is unchanged, so it still loads): a plugin that cannot work without the other, which none of the
    /// examples is. A linked example is first replaced by a copy (``copyExample(_:in:)``).
    package static func makeHardDependency(of name: String, on dependency: String, in directory: String) throws {
        let folder = "\(directory)/\(name)"
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: folder)) != nil {
            try copyExample(name, in: directory)
        }
        let url = URL(fileURLWithPath: "\(folder)/manifest.json")
        guard var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
            let dependencies = manifest["dependencies"] as? [[String: Any]]
        else { throw StagingFailed(description: "no dependencies in \(url.path)") }
        manifest["dependencies"] = dependencies.map { entry in
            entry["name"] as? String == dependency ? entry.filter { $0.key != "optional" } : entry
        }
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: url)
    }

    /// Writes a wrong SHA-256 (64 times `digit`) into the manifest of the plugin `name` in `directory`, a copy
    /// (``copyExample(_:in:)``): the daemon then refuses its library with `checksumMismatch`.
    package static func breakChecksum(of name: String, in directory: String, digit: Character = "0") throws {
        try writeChecksum(String(repeating: digit, count: 64), of: name, in: directory)
    }

    /// Writes `digest` as the SHA-256 of the library into the manifest of the plugin `name` in `directory`, a copy
    /// (``copyExample(_:in:)``): a library the test changed is then loaded as the manifest's own.
    package static func writeChecksum(_ digest: String, of name: String, in directory: String) throws {
        let manifest = "\(directory)/\(name)/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        guard let written = text.firstRange(of: /"sha256" *: *"[0-9a-f]{64}"/) else {
            throw StagingFailed(description: "\(manifest) has no sha256")
        }
        try text.replacingCharacters(in: written, with: #""sha256": ""# + digest + "\"")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
    }

    /// A fresh plugins folder holding copies of the staged example plugins `names` (copies, not links: a deployment
    /// replaces them, and a test may change them).
    package static func copies(of names: [String] = examples) throws -> String {
        let directory = try TestPaths.temporaryDirectory() + "/plugins"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(
                atPath: "\(DaemonProcess.examplePlugins)/\(name)",
                toPath: "\(directory)/\(name)"
            )
        }
        return directory
    }

    /// Deploys the plugin folder `source` as `<plugins>/<name>` the way an operator does: copies it to
    /// `<plugins>/.<name>.incoming` (hidden, so never scanned), lets `edit` change that copy, then renames it into
    /// place. A folder (or link) already there is first renamed away and then removed, so between the two renames
    /// the plugin's folder is briefly absent; the daemon never sees half a copy.
    package static func deploy(
        folder source: String,
        as name: String,
        into plugins: String,
        edit: (String) throws -> Void = { _ in }
    ) throws {
        let files = FileManager.default
        let incoming = "\(plugins)/.\(name).incoming"
        let target = "\(plugins)/\(name)"
        let retired = "\(plugins)/.\(name).old"
        try? files.removeItem(atPath: incoming)
        try files.copyItem(atPath: source, toPath: incoming)
        try edit(incoming)
        if (try? files.attributesOfItem(atPath: target)) != nil {
            try? files.removeItem(atPath: retired)
            try files.moveItem(atPath: target, toPath: retired)
            try files.moveItem(atPath: incoming, toPath: target)
            try files.removeItem(atPath: retired)
        } else {
            try files.moveItem(atPath: incoming, toPath: target)
        }
    }

    /// Writes the plugin folder `source` over `<plugins>/<name>/` in place, as a slow copy would: one file after
    /// another (the manifest first when `manifestFirst`, otherwise last), each truncated and then written in `chunks`
    /// parts with `pause` after each, so a watcher sees for a while a folder that is neither the old plugin nor the
    /// new one. Files of the old build that the new one lacks stay.
    ///
    /// - Important: the library's file is rewritten, not replaced. Use it only with a daemon that loads private
    ///   copies of libraries: overwriting a library some process has mapped changes (or truncates) its code.
    package static func writeInPlace(
        folder source: String,
        as name: String,
        into plugins: String,
        manifestFirst: Bool = true,
        chunks: Int = 4,
        pause: Duration = .milliseconds(100)
    ) async throws {
        let target = "\(plugins)/\(name)"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let others = try FileManager.default.subpathsOfDirectory(atPath: source).filter { path in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(source)/\(path)", isDirectory: &isDirectory)
            return path != "manifest.json" && !isDirectory.boolValue
        }.sorted()
        for file in manifestFirst ? ["manifest.json"] + others : others + ["manifest.json"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(source)/\(file)"))
            let path = "\(target)/\(file)"
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                withIntermediateDirectories: true
            )
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try output.truncate(atOffset: 0)
            let size = max(1, (bytes.count + chunks - 1) / max(1, chunks))
            for start in stride(from: 0, to: bytes.count, by: size) {
                try output.write(contentsOf: bytes[start..<min(start + size, bytes.count)])
                try await Task.sleep(for: pause)
            }
            try output.close()
        }
    }
}
