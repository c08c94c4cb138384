package import NavHostStorage

/// A plugins folder as the registry reads it, from manifests alone: one subfolder per plugin.
///
/// ```
/// <plugins>/
/// ├── Products/
/// │   ├── manifest.json
/// │   ├── libProductsFeature.so
/// │   └── products.json          resources, as the manifest lists them
/// └── Settings/
///     ├── manifest.json
///     └── libSettingsFeature.so
/// ```
///
/// Hidden entries (`.Products.staging-…`) and plain files are skipped; subfolders are read in name order.
package enum PluginDirectory {
    /// One plugin folder and what its manifest says, or why it cannot be read.
    package struct Candidate: Sendable {
        /// The plugin's folder.
        package var directory: String
        /// The folder's last path component.
        package var folderName: String
        /// The manifest, or the reason it cannot be used (`fileMissing` or `badManifest`).
        package var manifest: Result<PluginManifest, QuarantineReason>
    }

    /// The plugin folders in `directory`, each with its manifest read and validated; no code is loaded.
    package static func candidates(in directory: String) throws(FileAccessError) -> [Candidate] {
        var candidates: [Candidate] = []
        for name in try FileIO.directoryEntries(directory) where !name.hasPrefix(".") {
            let folder = "\(directory)/\(name)"
            guard FileIO.kind(of: folder) == .directory else { continue }
            candidates.append(Candidate(directory: folder, folderName: name, manifest: readManifest(in: folder)))
        }
        return candidates
    }

    /// Why `folder` does not hold the build `manifest` describes whole: the library it names is missing or
    /// unreadable (`fileMissing`), has another SHA-256 than the manifest's (`checksumMismatch`), or a resource it
    /// lists is not a file there (`fileMissing`); `nil` when the folder holds it whole. A copy still being written,
    /// and a library and a manifest of two different builds, do not. The library is hashed as it is read, not read
    /// whole: the ELF checks of a load are not made.
    package static func incompleteness(of manifest: PluginManifest, in folder: String) -> QuarantineReason? {
        let library = "\(folder)/\(manifest.library)"
        guard FileIO.kind(of: library) == .regularFile else { return .libraryMissing(library) }
        let digest: String
        do {
            digest = try SHA256.hexDigest(ofFileAt: library)
        } catch {
            return .libraryUnreadable(library, error)
        }
        guard digest == manifest.sha256 else { return .checksumMismatch(library, digest: digest, manifest: manifest) }
        return missingResourceReason(of: manifest, in: folder)
    }

    /// Why `folder` misses a resource `manifest` lists (the first that is not a file there); `nil` when none is
    /// missing.
    package static func missingResourceReason(of manifest: PluginManifest, in folder: String) -> QuarantineReason? {
        guard let missing = manifest.resources.first(where: { FileIO.kind(of: "\(folder)/\($0)") != .regularFile })
        else { return nil }
        return QuarantineReason(.fileMissing, "the resource \(missing) the manifest lists is not in \(folder)")
    }

    /// Reads and validates `<folder>/manifest.json`.
    package static func readManifest(in folder: String) -> Result<PluginManifest, QuarantineReason> {
        let path = "\(folder)/\(PluginManifest.fileName)"
        guard FileIO.kind(of: path) == .regularFile else {
            switch FileIO.kind(of: folder) {
            case .directory: break
            case nil where FileIO.isSymbolicLink(folder):
                return .failure(
                    QuarantineReason(
                        .fileMissing,
                        "\(folder) is a symbolic link that leads to no folder (its target is gone, or the links loop)"
                    )
                )
            case nil: return .failure(QuarantineReason(.fileMissing, "there is no folder \(folder)"))
            default:
                return .failure(
                    QuarantineReason(.fileMissing, "\(folder) is a file: load the plugin's folder, which holds it")
                )
            }
            return .failure(
                QuarantineReason(
                    .fileMissing,
                    "there is no \(PluginManifest.fileName) in \(folder)\(hint(forFolderWithoutManifest: folder))"
                )
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readFile(path, limit: PluginManifest.largestFile)
        } catch  where error.code == .tooLarge {
            // There, but not a manifest the daemon takes: a manifest names the plugin's files, it does not hold them.
            return .failure(
                QuarantineReason(
                    .badManifest,
                    "\(path) is larger than \(PluginManifest.largestFile) bytes, as no manifest is"
                )
            )
        } catch {
            return .failure(QuarantineReason(.fileMissing, "\(PluginManifest.fileName) cannot be read: \(error)"))
        }
        do {
            return .success(try PluginManifest(jsonBytes: bytes))
        } catch {
            return .failure(QuarantineReason(.badManifest, "\(path): \(error)"))
        }
    }
}

// MARK: - A folder given as a plugins folder

extension PluginDirectory {
    /// Why `folder`, given where a plugins folder is wanted (`navhost-plugin-tool list` and `check`), is none: it is
    /// missing, one plugin's own folder, or a plugin's package; `nil` when it may be one (an empty folder may be).
    package static func problemAsPluginsFolder(_ folder: String) -> String? {
        guard FileIO.kind(of: folder) == .directory else { return "\(folder) is not a folder" }
        if FileIO.kind(of: "\(folder)/\(PluginManifest.fileName)") == .regularFile {
            let trimmed = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            return "\(folder) is one plugin's folder, not a folder of plugins: give the folder that holds it, "
                + FileIO.parentDirectory(of: trimmed)
        }
        if FileIO.kind(of: "\(folder)/plugin.json") == .regularFile {
            let staged =
                FileIO.kind(of: "\(folder)/Package.swift") == .regularFile
                ? "\(folder)/.build/debug/plugins, where its make stages it"
                : "the checkout's .build/debug/plugins, where make build stages it"
            return
                "\(folder) is a plugin's package, not a folder of plugins: give the folder of staged plugins, \(staged)"
        }
        return nil
    }
}

// MARK: - Private

extension PluginDirectory {
    /// What to load instead when `folder`, which has no manifest, is a plugin's package rather than its staged
    /// folder, or a folder of plugins (a newcomer's first `Load`); empty otherwise.
    fileprivate static func hint(forFolderWithoutManifest folder: String) -> String {
        guard FileIO.kind(of: "\(folder)/plugin.json") == .regularFile else {
            let plugins = ((try? FileIO.directoryEntries(folder)) ?? []).filter { name in
                !name.hasPrefix(".") && FileIO.kind(of: "\(folder)/\(name)/\(PluginManifest.fileName)") == .regularFile
            }
            guard !plugins.isEmpty else { return "" }
            return "; it holds plugin folders: load one of them (\(plugins.joined(separator: ", ")))"
        }
        guard FileIO.kind(of: "\(folder)/Package.swift") == .regularFile else {
            return "; plugin.json describes a package to stage: load the folder navhost-plugin-tool stage writes"
        }
        // `make` stages into .build/debug/plugins, `make CONFIG=release` into .build/release/plugins.
        let staged = ["debug", "release"].flatMap { configuration in
            let plugins = "\(folder)/.build/\(configuration)/plugins"
            return ((try? FileIO.directoryEntries(plugins)) ?? []).filter { !$0.hasPrefix(".") }.map {
                "\(plugins)/\($0)"
            }
        }
        switch staged.count {
        case 0:
            return "; it is a plugin's package: stage it (make, or navhost-plugin-tool stage) and load the staged"
                + " folder, .build/debug/plugins/<Name> in it"
        case 1:
            return "; it is a plugin's package: load its staged folder, \(staged[0])"
        default:
            return "; it is a plugin's package: load one of its staged folders, \(staged.joined(separator: " or "))"
        }
    }
}

// MARK: - Reasons about a folder's files

extension QuarantineReason {
    /// The library `path` a manifest names is not a file.
    static func libraryMissing(_ path: String) -> QuarantineReason {
        QuarantineReason(.fileMissing, "the library \(path) named by the manifest is not there")
    }

    /// The library `path` a manifest names cannot be read.
    static func libraryUnreadable(_ path: String, _ error: FileAccessError) -> QuarantineReason {
        QuarantineReason(.fileMissing, "the library \(path) cannot be read: \(error)")
    }

    /// The library `path` has the SHA-256 `digest`, not the one `manifest` was written for.
    static func checksumMismatch(_ path: String, digest: String, manifest: PluginManifest) -> QuarantineReason {
        QuarantineReason(
            .checksumMismatch,
            "\(path) has SHA-256 \(digest), the manifest says \(manifest.sha256): stage the plugin again"
        )
    }
}
