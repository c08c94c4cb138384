import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

@Suite("Version ranges")
struct VersionRangeTests {
    @Test(
        "A range holds exactly the versions its comparators allow",
        arguments: [
            (">=1.0.0 <2.0.0", ["1.0.0", "1.4.2", "1.99.99"], ["0.9.9", "2.0.0", "2.0.0-beta", "1.5.0-rc.1"]),
            ("1.2.3", ["1.2.3", "1.2.3+build"], ["1.2.4", "1.2.3-rc.1"]),
            ("=1.2.3", ["1.2.3"], ["1.2.2"]),
            (">1.2.3", ["1.2.4", "2.0.0"], ["1.2.3", "1.0.0"]),
            ("<=1.2.3", ["1.2.3", "0.1.0"], ["1.2.4"]),
            ("^1.2.3", ["1.2.3", "1.9.0"], ["1.2.2", "2.0.0"]),
            ("^0.2.3", ["0.2.3", "0.2.9"], ["0.3.0", "0.2.2"]),
            ("^0.0.3", ["0.0.3"], ["0.0.4", "0.0.2"]),
            ("~1.2.3", ["1.2.3", "1.2.9"], ["1.3.0", "1.2.2"]),
            ("*", ["0.0.1", "99.0.0"], ["1.0.0-alpha"]),
            (
                ">=1.0.0-beta <1.0.0", ["1.0.0-beta", "1.0.0-beta.2", "1.0.0-rc.1"],
                ["1.0.0-alpha", "1.0.0", "1.1.0-beta"]
            ),
        ]
    )
    func membership(range text: String, inside: [String], outside: [String]) throws {
        let range = try #require(VersionRange(text))
        for version in inside {
            #expect(range.contains(try #require(SemanticVersion(version))), "\(version) in \(text)")
        }
        for version in outside {
            #expect(!range.contains(try #require(SemanticVersion(version))), "\(version) not in \(text)")
        }
    }

    @Test(
        "Text that is not a range is refused",
        arguments: ["", "   ", ">=1.0", ">= 1.0.0", "=>1.0.0", "1.0.0 || 2.0.0", "^1", "~>1.0.0", "latest", "<<1.0.0"]
    )
    func invalidRanges(text: String) {
        #expect(VersionRange(text) == nil)
    }

    @Test("A range is its text on the wire, with single spaces")
    func codable() throws {
        let range = try #require(VersionRange(">=1.0.0   <2.0.0"))
        #expect(range.description == ">=1.0.0 <2.0.0")
        #expect(try JSONValueEncoder().encode(range) == ">=1.0.0 <2.0.0")
        #expect(try JSONValueDecoder().decode(VersionRange.self, from: ">=1.0.0 <2.0.0") == range)
        #expect(throws: (any Error).self) { try JSONValueDecoder().decode(VersionRange.self, from: "newest") }
    }
}
