import Foundation

/// A new folder under the system's temporary folder, with a unique name; removed by ``remove()``.
struct TemporaryDirectory: Sendable {
    /// The folder's path.
    let path: String

    /// Creates the folder.
    init() throws {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/navhost-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
