import Testing

@testable import NavHostSpelling

/// The rule behind navctl's and navhost-plugin-tool's "did you mean".
@Suite("Spelling: the name a mistyped one was meant to be")
struct SpellingTests {
    static let names = ["navigate", "new", "main", "products.list", "products.detail", "Home", "Products"]

    @Test(
        "One slip under eight characters, two from eight on, a swap of neighbours counting one",
        arguments: [
            ("naviagte", "navigate"), ("nvigat", nil), ("nwe", "new"), ("mian", "main"),
            ("products.lsit", "products.list"), ("prodcts.lst", "products.list"), ("Prodcts", "Products"),
            ("Nope", nil), ("Hoem", "Home"), ("xy", nil),
        ] as [(String, String?)]
    )
    func closest(word: String, expected: String?) {
        #expect(Spelling.closest(to: word, among: Self.names) == expected)
    }

    @Test(
        "The distance counts insertions, deletions, substitutions and swaps of neighbours",
        arguments: [
            ("naviagte", "navigate", 1), ("kitten", "sitting", 3), ("abc", "", 3), ("", "ab", 2), ("ca", "abc", 3),
            ("products.lsit", "products.list", 1), ("same", "same", 0), ("ab", "ba", 1), ("abcd", "badc", 2),
        ] as [(String, String, Int)]
    )
    func editDistance(a: String, b: String, distance: Int) {
        #expect(Spelling.editDistance(a, b) == distance)
        #expect(Spelling.editDistance(b, a) == distance)
    }

    @Test("A word far longer than every name is no slip of any")
    func farLongerWord() {
        #expect(Spelling.closest(to: String(repeating: "x", count: 100_000), among: Self.names) == nil)
    }

    @Test("A name it has is no slip; a word of three or more that begins a name is taken for it")
    func knownNamesAndPrefixes() {
        #expect(Spelling.closest(to: "main", among: Self.names) == nil)
        #expect(Spelling.closest(to: "products.de", among: Self.names) == "products.detail")
        #expect(Spelling.closest(to: "pr", among: Self.names) == nil)
    }
}
