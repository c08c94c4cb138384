/// The name a mistyped one was probably meant to be: `naviagte` for `navigate`, `products.lsit` for
/// `products.list`, `sumary` for a manifest's `summary`. One rule for every "did you mean": the command lines'
/// commands, navctl's names, the plugin host's manifest fields and navhostd.conf's keys.
public enum Spelling {
    /// The name of `names` closest to `word` within the edits a slip makes (the fewest wins, the first of equals):
    /// one for a `word` of three to seven characters, two for a longer one, so that `Nope` is not taken for `Home`.
    /// Else, for a `word` of three characters or more, the first name it begins. `nil` when none is that close or
    /// `word` is one of them.
    ///
    /// - Parameter present: Names the object `word` is a key of has already: when the closest name is one of them,
    ///   there is no suggestion (renamed to it, the key would be given twice), and no farther name in its place.
    public static func closest(to word: String, among names: [String], present: Set<String> = []) -> String? {
        closestName(to: word, among: names).flatMap { present.contains($0) ? nil : $0 }
    }

    /// ``closest(to:among:present:)`` without the names present.
    private static func closestName(to word: String, among names: [String]) -> String? {
        guard !names.contains(word) else { return nil }
        let allowed = word.count < 3 ? 0 : word.count < 8 ? 1 : 2
        // A name whose length is further off than the edits allowed cannot be that close: its distance is not
        // computed (a key of a megabyte in a hand-made manifest would cost a table of its length squared).
        let scored = names.filter { abs($0.count - word.count) <= allowed }.map { ($0, editDistance(word, $0)) }
            .filter { $0.1 <= allowed }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        return word.count >= 3 ? names.first { $0.hasPrefix(word) } : nil
    }

    /// The Levenshtein distance between `a` and `b`, an adjacent swap counting as one edit (`naviagte`); three rows
    /// of the table are kept, the two before the one being filled.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var beforeLast = [Int](repeating: 0, count: b.count + 1)
        var last = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(last[j] + 1, row[j - 1] + 1, last[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], beforeLast[j - 2] + 1)
                }
            }
            (beforeLast, last, row) = (last, row, beforeLast)
        }
        return last[b.count]
    }
}
