import NavHostStorage

/// A plugin folder as a try of it found it: the stamps (``FileIO/Stamp``: inode, size, modification and change
/// times) of the folder and of the library the manifest names there, read before the try read anything they cover.
///
/// A later look tells whether the folder changed since by comparing the stamps it has then with these, for
/// inequality, never against a clock: a resource removed while the try read the folder, or at any moment after, gives
/// the folder another stamp, however close in time the two were; a folder left alone gives the same stamps, so it is
/// not checked twice. Only the folder and the library are stamped: a resource rewritten in place, not removed or
/// replaced, is no change here.
struct PluginFolderStamps: Sendable, Equatable {
    /// The folder's stamp; `nil` when it was not there.
    var folder: FileIO.Stamp?
    /// The library's stamp; `nil` when it was not there or no manifest named it.
    var library: FileIO.Stamp?

    /// The stamps the folder `directory` and its library `library` (a name in it) have now.
    init(of directory: String, library: String?) {
        folder = FileIO.stamp(of: directory)
        self.library = library.flatMap { FileIO.stamp(of: "\(directory)/\($0)") }
    }
}
