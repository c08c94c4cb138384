import Foundation
import Testing

@testable import NavHostPluginHost
@testable import NavHostStorage

// A Load or Unload whose overrides file could not be written is refused with `storageFailed`: what a restart loads
// must agree with that refusal, also when the failed write renamed the new file into place (its folder's `fsync`
// failed), so that a crash right after the refusal finds the change on disk.
extension PluginControlOverridesTests {
    @Test("A refused Load and Unload whose file may be in place are written back: a restart loads what was answered")
    func refusedChangesInPlaceAreWrittenBack() async throws {
        defer { cleanUp() }
        let disk = FaultyDiskWrites()
        let control = start(writes: disk)
        let path = "\(elsewhere.path)/UserProfile"

        disk.failNext([.afterLanding])
        let unload = await #expect(throws: PluginRegistry.ChangeError.self) { try await control.unload("Settings") }
        disk.failNext([.afterLanding])
        let load = await #expect(throws: PluginRegistry.ChangeError.self) { try await control.load(pluginAt: path) }

        for refusal in [unload, load] {
            guard case .refused(let reason) = refusal else {
                Issue.record("not refused: \(String(describing: refusal))")
                continue
            }
            #expect(reason.code == .storageFailed)
            #expect(!reason.message.contains("a restart may make it"), "\(reason.message)")
        }
        // Each failed write, then the overrides in force written over it, before the refusal.
        #expect(disk.log.count == 4, "\(disk.log)")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())
        let restarted = start()
        #expect(state(of: "Settings", in: restarted) == "loaded")
        #expect(state(of: "UserProfile", in: restarted) == "")
    }

    @Test("A refused Unload whose file is in place and cannot be written back says a restart may make it")
    func refusedChangeThatCannotBeWrittenBack() async throws {
        defer { cleanUp() }
        let disk = FaultyDiskWrites()
        let control = start(writes: disk)

        disk.failNext([.afterLanding, .beforeLanding])
        let refusal = await #expect(throws: PluginRegistry.ChangeError.self) { try await control.unload("Settings") }

        guard case .refused(let reason) = refusal else {
            Issue.record("not refused: \(String(describing: refusal))")
            return
        }
        #expect(reason.code == .storageFailed)
        #expect(reason.message.contains("a restart may make it"), "\(reason.message)")
        #expect(state(of: "Settings", in: control) == "loaded")
        #expect(state(of: "Settings", in: start()) == "removed", "the file holds the refused Unload, as it says")

        // The client undoes it: a Load of the folder, which changes nothing in force, writes the file all the same.
        _ = try? await control.load(pluginAt: "\(workspace.plugins)/Settings")
        #expect(state(of: "Settings", in: start()) == "loaded")
    }

    @Test("A refused Unload whose write-back is renamed into place too is refused as usual: a restart keeps the plugin")
    func refusedChangeWrittenBackInPlace() async throws {
        defer { cleanUp() }
        let disk = FaultyDiskWrites()
        let control = start(writes: disk)

        disk.failNext([.afterLanding, .afterLanding])
        let refusal = await #expect(throws: PluginRegistry.ChangeError.self) { try await control.unload("Settings") }

        guard case .refused(let reason) = refusal else {
            Issue.record("not refused: \(String(describing: refusal))")
            return
        }
        #expect(reason.code == .storageFailed)
        #expect(!reason.message.contains("a restart may make it"), "\(reason.message)")
        #expect(state(of: "Settings", in: start()) == "loaded")
    }

    @Test("A Load the registry refuses whose write-back fails says a restart may make it, and the next call repairs it")
    func registryRefusalThatCannotBeWrittenBack() async throws {
        defer { cleanUp() }
        let disk = FaultyDiskWrites()
        let control = start(writes: disk)
        try await control.unload("Settings")
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Settings")
        try workspace.addStaged("Settings") { $0.sha256 = String(repeating: "0", count: 64) }
        // The Load is written; the write of the overrides in force over it, once the registry refused it, fails.
        control.whileWriting = { disk.failNext([.beforeLanding]) }

        let refusal = await #expect(throws: PluginRegistry.ChangeError.self) {
            try await control.load(pluginAt: "\(workspace.plugins)/Settings")
        }

        control.whileWriting = nil
        guard case .refused(let reason) = refusal else {
            Issue.record("not refused: \(String(describing: refusal))")
            return
        }
        #expect(reason.code != .storageFailed)
        #expect(reason.message.contains("a restart may make this change"), "\(reason.message)")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())
        // Another call writes the file, although it changes nothing in force.
        await #expect(throws: PluginRegistry.ChangeError.self) {
            try await control.load(pluginAt: "\(workspace.plugins)/Settings")
        }
        #expect(try PluginOverridesFile(directory: workspace.state).load().get().unloaded.count == 1)
    }

    @Test("A refused Unload whose write failed before it replaced the file writes nothing more")
    func refusedChangeNotInPlaceIsNotWrittenAgain() async throws {
        defer { cleanUp() }
        let disk = FaultyDiskWrites()
        let control = start(writes: disk)

        disk.failNext([.beforeLanding])
        await #expect(throws: PluginRegistry.ChangeError.self) { try await control.unload("Settings") }

        #expect(disk.log.count == 1, "\(disk.log)")
        #expect(state(of: "Settings", in: start()) == "loaded")
    }
}
