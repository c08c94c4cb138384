import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

@Suite("Semantic versions")
struct SemanticVersionTests {
    @Test(
        "Valid versions parse and print back the same",
        arguments: [
            "0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x.7.z.92",
            "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-rc.1+build.1", "2.0.0-x-y-z.--",
        ]
    )
    func validVersions(text: String) throws {
        let version = try #require(SemanticVersion(text))
        #expect(version.description == text)
    }

    @Test(
        "Anything else is refused",
        arguments: [
            "", "1", "1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3+", "1.2.3-01",
            "1.2.3-a..b", "1.2.3-a_b", " 1.2.3", "1.2.3 ", "-1.2.3", "1.2.-3", "99999999999999999999.0.0",
        ]
    )
    func invalidVersions(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test("Versions order by semver precedence, pre-releases before their release (semver.org §11)")
    func precedence() throws {
        let ordered = try [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.10.0", "2.0.0",
        ].map { try #require(SemanticVersion($0)) }
        #expect(ordered.sorted() == ordered)
        for (lower, higher) in zip(ordered, ordered.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
            #expect(!(higher < lower))
        }
    }

    @Test("Build metadata does not count when comparing")
    func buildMetadataIgnored() throws {
        let a = try #require(SemanticVersion("1.0.0+a"))
        let b = try #require(SemanticVersion("1.0.0+b"))
        #expect(a == b && !(a < b) && !(b < a))
        #expect(Set([a, b]).count == 1)
        #expect(a.buildMetadata == ["a"])
    }

    @Test("A version is JSON text, and text that is not a version fails to decode")
    func codable() throws {
        let version = try #require(SemanticVersion("1.2.3-beta.1"))
        #expect(try JSONValueEncoder().encode(version) == "1.2.3-beta.1")
        #expect(try JSONValueDecoder().decode(SemanticVersion.self, from: "1.2.3-beta.1") == version)
        #expect(throws: (any Error).self) { try JSONValueDecoder().decode(SemanticVersion.self, from: "1.2") }
    }
}
