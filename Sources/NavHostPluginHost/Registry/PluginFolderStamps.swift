import NavHostStorage

/// A plugin folder as a try of it found it: the stamps (``FileIO/Stamp``: inode, size, modification and change
/// times) of the folder, of the library its manifest names and of every resource the manifest lists, read before the
/// try read the library and the resources.
///
/// A later look tells whether the folder changed since by comparing the stamps it has then with these, for
/// inequality, never against a clock: a resource removed while the try read the folder, or at any moment after, has
/// no stamp then, however close in time the two were and however coarse the file system's clock; a folder left alone
/// gives the same stamps, so it is not checked twice. A resource in a subfolder (`images/logo.png`) is stamped
/// itself, as its removal changes its own folder, not the plugin's. The manifest is not stamped: it is read again and
/// compared by its content.
struct PluginFolderStamps: Sendable, Equatable {
    /// The folder's stamp; `nil` when it was not there.
    var folder: FileIO.Stamp?
    /// The library's stamp; `nil` when it was not there or no manifest named it.
    var library: FileIO.Stamp?
    /// Each listed resource's stamp, in the manifest's order; `nil` for one that was not there.
    var resources: [FileIO.Stamp?]

    /// The stamps the folder `directory` and the library and resources `manifest` names there have now.
    init(of directory: String, manifest: PluginManifest?) {
        folder = FileIO.stamp(of: directory)
        library = manifest.flatMap { FileIO.stamp(of: "\(directory)/\($0.library)") }
        resources = (manifest?.resources ?? []).map { FileIO.stamp(of: "\(directory)/\($0)") }
    }
}
