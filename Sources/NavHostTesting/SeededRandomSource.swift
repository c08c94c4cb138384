public import NavHostKit
internal import Synchronization

/// A ``RandomSource`` that gives the same numbers for the same seed, every run: what a ``FeatureTestHost`` lends.
///
/// It is SplitMix64: small, fast and well spread, and not for secrets.
public final class SeededRandomSource: RandomSource {
    private let state: Mutex<UInt64>

    /// Creates a source that starts from `seed`.
    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    public func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}
