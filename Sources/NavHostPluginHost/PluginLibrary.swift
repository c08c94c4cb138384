import Glibc
package import NavHostKit

/// A plugin's shared library, opened for good.
///
/// Swift code cannot be unloaded safely (the runtime keeps pointers into each image's metadata), so the library is
/// opened with `RTLD_NODELETE` and never closed. Opening the same path twice returns the first image, even when the
/// file changed: load a new build from a fresh path.
package struct PluginLibrary: @unchecked Sendable {
    /// Why a library could not be used.
    package enum OpenError: Error, Equatable, Sendable {
        /// `dlopen` refused it; the text is `dlerror()`'s.
        case notLoadable(String)
        /// The library has no such symbol.
        case missingSymbol(String)
        /// The entry point returned something that is not a `FeatureModule` of the daemon's NavHostKit.
        case notAFeatureModule
    }

    private let handle: UnsafeMutableRawPointer

    /// The path the library was opened from.
    package let path: String

    /// Opens the library at `path` with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE`.
    package init(path: String) throws(OpenError) {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            throw .notLoadable(Self.lastError() ?? "dlopen failed")
        }
        self.handle = handle
        self.path = path
    }

    /// The address of `name`, or an error when the library does not export it.
    package func symbol(named name: String) throws(OpenError) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let address = dlsym(handle, name) else { throw .missingSymbol(name) }
        return address
    }

    /// Calls the plugin's entry point and returns its feature module.
    package func featureModule() throws(OpenError) -> any FeatureModule {
        typealias Entry = @convention(c) () -> UnsafeMutableRawPointer
        let entry = unsafeBitCast(try symbol(named: FeatureExport.entrySymbol), to: Entry.self)
        guard let module = FeatureExport.module(from: entry()) else { throw .notAFeatureModule }
        return module
    }

    private static func lastError() -> String? {
        guard let message = dlerror() else { return nil }
        return String(cString: message)
    }
}
