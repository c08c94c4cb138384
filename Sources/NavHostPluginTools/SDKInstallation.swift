import FoundationEssentials
import Glibc
import NavHostCore
import NavHostStorage

/// An installed NavHostKit SDK: the folder holding `libNavHostKit.so`, the test kit `libNavHostTesting.so`,
/// `navhost-plugin-tool` and `swift/`, the module interfaces plugins compile against (docs/sdk.md).
///
/// ```
/// /usr/lib/navhost/
/// ├── libNavHostKit.so, libNavHostTesting.so, navhost-plugin-tool
/// └── swift/{NavHostKit,NavHostJSON,NavHostTesting}.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface, …
/// ```
public struct SDKInstallation: Sendable, Hashable {
    /// The folder the SDK is installed in.
    public var directory: String

    /// The folder of module interfaces, passed to the compiler with `-I`.
    public var modulesDirectory: String { "\(directory)/swift" }

    /// The SDK this running tool belongs to: the folder it was installed in.
    ///
    /// - Throws: ``PluginToolError`` with code `sdkNotInstalled` when the tool does not run from an installed SDK
    ///   (a build folder of the NavHost repository, say).
    public static func containingThisTool() throws(PluginToolError) -> SDKInstallation {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw PluginToolError(.sdkNotInstalled, "cannot tell where navhost-plugin-tool runs from")
        }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let sdk = SDKInstallation(directory: FileIO.parentDirectory(of: executable))
        guard FileIO.kind(of: "\(sdk.directory)/libNavHostKit.so") == .regularFile,
            FileIO.kind(of: "\(sdk.modulesDirectory)/NavHostKit.swiftmodule") == .directory
        else {
            throw PluginToolError(
                .sdkNotInstalled,
                "\(sdk.directory) holds no installed NavHostKit SDK (libNavHostKit.so and swift/): run the "
                    + "navhost-plugin-tool that `make install` (or `make install-sdk`) put in place"
            )
        }
        return sdk
    }
}
