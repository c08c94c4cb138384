/// Where a feature's random numbers come from: `HostServices.random`.
///
/// The daemon lends the system's generator; a test (and a replay of a recorded session) lends a seeded one, so a
/// use case that shuffles, picks or makes IDs gives the same answers every run. Draw through it rather than through
/// the standard library's default generator:
///
/// ```swift
/// var generator = random.generator
/// let tip = tips.randomElement(using: &generator)
/// ```
///
/// - Since: NavHostKit 2.1.0.
public protocol RandomSource: Sendable {
    /// The next 64 random bits.
    func next() -> UInt64
}

extension RandomSource {
    /// A generator for the standard library's `random(in:using:)`, `shuffled(using:)` and `randomElement(using:)`.
    public var generator: RandomSourceGenerator { RandomSourceGenerator(source: self) }
}

/// A `RandomNumberGenerator` that draws from a ``RandomSource``.
public struct RandomSourceGenerator: RandomNumberGenerator {
    private let source: any RandomSource

    /// Creates a generator that draws from `source`.
    public init(source: any RandomSource) {
        self.source = source
    }

    public mutating func next() -> UInt64 { source.next() }
}

/// The system's cryptographically secure generator: what the daemon lends features.
public struct SystemRandomSource: RandomSource {
    public init() {}

    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}
