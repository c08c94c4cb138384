import Foundation
import IntegrationHarness
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

/// Proves that a plugin built by this package and the host share ONE loaded copy of NavHostKit.
///
/// If the plugin carried its own copy of the SDK, the cast to `FeatureModule` would fail (two distinct protocol
/// descriptors) and each side would see only its own `SDKImageProbe` counter.
@Suite("The plugin SDK is one shared library")
struct SharedSDKTests {
    @Test("A plugin's module casts to the host's FeatureModule and both sides share SDK globals")
    func pluginSharesTheSDK() throws {
        let library = try PluginLibrary(path: TestPaths.builtLibrary("ProbePlugin"))
        let module = try library.featureModule()
        #expect(module.name == "Probe")
        #expect(module.screens.map(\.route) == ["probe.main"])

        typealias Counter = @convention(c) () -> Int
        let pluginIncrement = unsafeBitCast(try library.symbol(named: "navhost_probe_increment"), to: Counter.self)
        let pluginValue = unsafeBitCast(try library.symbol(named: "navhost_probe_value"), to: Counter.self)

        let start = SDKImageProbe.value
        #expect(pluginIncrement() == start + 1, "the plugin changes the counter")
        #expect(SDKImageProbe.value == start + 1, "the host sees the plugin's change")
        SDKImageProbe.increment()
        #expect(pluginValue() == start + 2, "the plugin sees the host's change")
    }

    @Test("The plugin and the test host both link the same libNavHostKit.so")
    func oneImageInTheProcess() throws {
        _ = try PluginLibrary(path: TestPaths.builtLibrary("ProbePlugin"))
        // `String(contentsOfFile:)` reads only the first page of a /proc file; read to the end instead.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let images = Set(
            maps.split(separator: "\n").compactMap { line in
                line.split(separator: " ").last.map(String.init)
            }.filter { $0.hasSuffix("/libNavHostKit.so") }
        )
        #expect(images.count == 1, "mapped: \(images)")
    }
}
