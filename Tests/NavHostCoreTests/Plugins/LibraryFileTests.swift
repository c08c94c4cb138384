import Foundation
import IntegrationHarness
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost
@testable import NavHostStorage

@Suite("Library files: SHA-256 and the ELF check")
struct LibraryFileTests {
    @Test("SHA-256 of known inputs")
    func knownDigests() {
        #expect(SHA256.hexDigest(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hexDigest(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        // FIPS 180-2's two-block message and its million "a"s, which crosses many blocks and the file reader's chunks.
        #expect(
            SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hexDigest(of: millionA) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }

    @Test("A file is digested in chunks to the same digest as its bytes")
    func fileDigest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bytes = (0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = "\(directory.path)/big.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try SHA256.hexDigest(ofFileAt: path) == SHA256.hexDigest(of: bytes))
        #expect(throws: FileAccessError.self) { try SHA256.hexDigest(ofFileAt: "\(directory.path)/none") }
    }

    @Test("A library the package built is a shared object for this machine")
    func builtLibrary() throws {
        let bytes = try FileIO.readPrefix(TestPaths.builtLibrary("ProbePlugin"), count: ELFHeader.prefixLength)
        let header = try #require(ELFHeader(bytes: bytes))
        #expect(header.objectType == ELFHeader.sharedObjectType)
        #expect(header.problem == nil)
    }

    @Test("Text, a short file, or a bad ELF class is not an ELF header")
    func notELF() {
        #expect(ELFHeader(bytes: Array("not a library, just text\n".utf8)) == nil)
        #expect(ELFHeader(bytes: [0x7f, 0x45, 0x4c, 0x46]) == nil)
        #expect(ELFHeader(bytes: [0x7f, 0x45, 0x4c, 0x46, 9, 1] + Array(repeating: 0, count: 14)) == nil)
    }

    @Test("An executable or a relocatable object is not a shared object")
    func otherObjectTypes() throws {
        var bytes = try FileIO.readPrefix(TestPaths.builtLibrary("ProbePlugin"), count: ELFHeader.prefixLength)
        for type: UInt8 in [1, 2, 4] {
            bytes[16] = type
            #expect(ELFHeader(bytes: bytes)?.problem?.contains("not a shared object") == true)
        }
    }

    @Test("A whole library fits its file; cut short anywhere past its header, a table, segment or section does not")
    func truncatedLibrary() throws {
        let whole = try FileIO.readFile(TestPaths.builtLibrary("ProbePlugin"), limit: 1 << 30)
        #expect(ELFLayout(bytes: whole)?.truncation == nil)
        for fraction in [0.9, 0.5, 0.1] {
            let cut = Array(whole.prefix(Int(Double(whole.count) * fraction)))
            let problem = try #require(ELFLayout(bytes: cut)?.truncation, "cut to \(fraction)")
            #expect(problem.contains("past the end of the file"), "\(problem)")
        }
        #expect(ELFLayout(bytes: Array(whole.prefix(40)))?.truncation?.contains("header is cut short") == true)
    }
}
