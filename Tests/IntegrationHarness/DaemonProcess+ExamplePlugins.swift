import Foundation

extension DaemonProcess {
    /// Whether the build has staged the example plugins at ``examplePlugins``: tests that need screens (home.main,
    /// products.list, …) from a real daemon run only then.
    package static var examplePluginsAreStaged: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: examplePlugins, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }
}
