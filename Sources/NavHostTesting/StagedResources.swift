internal import Glibc
internal import NavHostKit

/// The resources a plugin's manifest lists, copied from its package's folder into a folder of their own, as
/// `navhost-plugin-tool stage` copies them: a feature under test finds the files a staged plugin has, and no others.
/// The folder goes with the value.
final class StagedResources: Sendable {
    /// The folder the copies are in.
    let path: String
    /// What was made there, in the order it was made.
    private let made: [(path: String, isDirectory: Bool)]

    /// Copies the files the manifest at `manifestPath` lists as `resources` from `directory`; `nil` when there is no
    /// manifest there (a test outside a plugin package). A listed file that is not in `directory` is left out: a
    /// test that does not read it goes on (staging would refuse the plugin; `navhost-plugin-tool stage` says so).
    ///
    /// - Throws: ``ResourceError`` when the manifest cannot be read or is not an object whose `resources` are names,
    ///   or a listed file cannot be read or copied.
    init?(listedIn manifestPath: String, from directory: String) throws(ResourceError) {
        let manifest: [UInt8]
        do {
            let slash = manifestPath.lastIndex(of: "/")
            let folder = slash.map { String(manifestPath[..<$0]) } ?? "."
            let file = slash.map { String(manifestPath[manifestPath.index(after: $0)...]) } ?? manifestPath
            manifest = try ResourceFolder(path: folder.isEmpty ? "/" : folder).contents(of: file)
        } catch  where error.isMissing {
            return nil
        }
        let names: [String]
        do {
            guard let object = try JSONParser().parse(manifest).objectValue else {
                throw ResourceError(name: manifestPath, reason: "it is not a JSON object")
            }
            guard let list = object["resources", default: .array([])].arrayValue else {
                throw ResourceError(name: manifestPath, reason: "its resources are not a list of names")
            }
            names = try list.map { value throws(ResourceError) in
                guard let name = value.stringValue else {
                    throw ResourceError(name: manifestPath, reason: "its resources are not a list of names")
                }
                return name
            }
        } catch let error as ResourceError {
            throw error
        } catch {
            throw ResourceError(name: manifestPath, reason: "it is not JSON: \(error)")
        }
        let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(temporary)/navhost-test-resources.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ResourceError(
                name: manifestPath,
                reason: "no folder for its resources: \(String(cString: strerror(errno)))"
            )
        }
        path = String(cString: made)
        var created: [(path: String, isDirectory: Bool)] = [(path, true)]
        do {
            try Self.copy(names, from: ResourceFolder(path: directory), to: path, noting: &created)
        } catch {
            Self.remove(created)
            throw error
        }
        self.made = created
    }

    deinit {
        Self.remove(made)
    }

    // MARK: - Private Functions

    /// Copies the resources `names` to the folder `path`, noting each folder and file it makes.
    private static func copy(
        _ names: [String],
        from source: ResourceFolder,
        to path: String,
        noting created: inout [(path: String, isDirectory: Bool)]
    ) throws(ResourceError) {
        for name in names {
            let bytes: [UInt8]
            do {
                bytes = try source.contents(of: name)
            } catch  where error.isMissing {
                continue
            }
            var folder = path
            for component in name.split(separator: "/").dropLast() {
                folder += "/\(component)"
                if mkdir(folder, 0o755) == 0 { created.append((folder, true)) }
            }
            let file = "\(path)/\(name)"
            let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw cannotCopy(name) }
            created.append((file, false))
            defer { close(descriptor) }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes {
                    write(descriptor, $0.baseAddress! + written, bytes.count - written)
                }
                guard count > 0 else { throw cannotCopy(name) }
                written += count
            }
        }
    }

    private static func cannotCopy(_ name: String) -> ResourceError {
        ResourceError(name: name, reason: "cannot copy it: \(String(cString: strerror(errno)))")
    }

    /// Removes what was made, the latest first.
    private static func remove(_ made: [(path: String, isDirectory: Bool)]) {
        for (path, isDirectory) in made.reversed() {
            if isDirectory { rmdir(path) } else { unlink(path) }
        }
    }
}
