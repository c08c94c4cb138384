import Foundation

/// A fresh folder under `/tmp` with a short path (socket paths must fit in 108 bytes), removed by ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/navhost-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: created)
    }

    /// The path of `name` inside the folder.
    func appending(_ name: String) -> String { "\(path)/\(name)" }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
