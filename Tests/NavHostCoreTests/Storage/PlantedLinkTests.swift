import Glibc
import IntegrationHarness
import NavHostStorage
import Testing

/// A symbolic link planted where the daemon keeps a file of its own (a session's journal, a flight recording): the
/// write is refused rather than made wherever the link points.
@Suite("Links planted in the state folder are not written through")
struct PlantedLinkTests {
    @Test("A durable write and an append refuse a link at their path; the file it points to is untouched")
    func linksAreRefused() throws {
        let directory = try TestPaths.temporaryDirectory()
        let victim = "\(directory)/victim"
        try FileIO.writeAtomically(Array("secret\n".utf8), to: victim)
        for name in ["main.journal", "main.navrec"] { #expect(symlink(victim, "\(directory)/\(name)") == 0) }

        #expect(throws: FileAccessError.self) {
            try FileIO.writeDurably(Array("x".utf8), at: 0, to: "\(directory)/main.journal", cuttingTo: 1)
        }
        #expect(throws: FileAccessError.self) { try FileIO.append(Array("x".utf8), to: "\(directory)/main.navrec") }
        #expect(try FileIO.readFile(victim) == Array("secret\n".utf8))

        // navctl's own output may be a link it was given (`/dev/stdout`): it asks for the link to be followed.
        try FileIO.append(Array("more\n".utf8), to: "\(directory)/main.navrec", followingLinks: true)
        #expect(try FileIO.readFile(victim) == Array("secret\nmore\n".utf8))
    }
}
