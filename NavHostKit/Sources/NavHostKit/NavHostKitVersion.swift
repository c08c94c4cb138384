/// The version of the NavHostKit SDK, checked when the daemon loads a plugin.
///
/// NavHostKit follows semantic versioning and is built with library evolution, so its ABI is stable within a major
/// version: a plugin built against `2.0.0` runs on a daemon whose SDK is `2.3.1`, because a minor version only adds
/// (members, types, requirements with defaults) and a resilient library hides the layout of what it adds. The daemon
/// refuses a plugin built for another major version, or for a newer minor version than its own, because such a
/// plugin may use SDK API the daemon's copy lacks. `NavHostKit/CHANGELOG.md` lists what each version changed.
public struct NavHostKitVersion: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// The version of the SDK the calling code was compiled against.
    ///
    /// Its body is emitted into the caller's binary, so in a plugin it is the version of the SDK the plugin was
    /// built with, whatever SDK the daemon loads it into. (`scripts/sdk-releases.sh --current` reads the version
    /// from the line below.)
    @_alwaysEmitIntoClient
    public static var compiled: NavHostKitVersion { NavHostKitVersion(major: 2, minor: 2, patch: 0) }

    /// The version of the SDK loaded in this process: the daemon's, when asked from a plugin.
    public static let current = compiled

    /// Parses `MAJOR.MINOR.PATCH`.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let major = parts[0], let minor = parts[1], let patch = parts[2],
            major >= 0, minor >= 0, patch >= 0
        else { return nil }
        self.init(major: major, minor: minor, patch: patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    /// Whether code built against `self` can run on an SDK of version `host`.
    public func isCompatible(withHost host: NavHostKitVersion) -> Bool {
        major == host.major && minor <= host.minor
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = NavHostKitVersion(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\"\(text)\" is not a version like 1.2.0")
            )
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
