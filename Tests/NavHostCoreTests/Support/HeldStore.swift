import NavHostKit
import NavHostTesting
import Synchronization

/// A store in memory whose `setValue` waits, once begun, until ``release`` opens: a write to the disk under way for as
/// long as a test needs. ``writeBegan`` opens when it begins; ``hasLanded`` says whether a write has landed since, and
/// ``writesBegun`` how many began.
final class HeldStore: KeyValueStore {
    let base = InMemoryKeyValueStore()
    let writeBegan = Gate()
    let release = Gate()
    private let landed = Atomic(false)
    private let begun = Atomic(0)

    /// Whether a write has landed in ``base``.
    var hasLanded: Bool { landed.load(ordering: .acquiring) }

    /// How many writes (`setValue`) began.
    var writesBegun: Int { begun.load(ordering: .acquiring) }

    func value(forKey key: String) async throws -> JSONValue? {
        try await base.value(forKey: key)
    }

    func setValue(_ value: JSONValue, forKey key: String) async throws {
        begun.add(1, ordering: .releasing)
        writeBegan.open()
        await release.wait()
        try await base.setValue(value, forKey: key)
        landed.store(true, ordering: .releasing)
    }

    func removeValue(forKey key: String) async throws {
        try await base.removeValue(forKey: key)
    }
}
