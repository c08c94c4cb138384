import NavHostSpelling
import Testing

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

    @Test("A name it has is no slip; a word of three or more that begins a name is taken for it")
    func knownNamesAndPrefixes() {
        #expect(Spelling.closest(to: "main", among: Self.names) == nil)
        #expect(Spelling.closest(to: "products.de", among: Self.names) == "products.detail")
        #expect(Spelling.closest(to: "pr", among: Self.names) == nil)
    }
}
