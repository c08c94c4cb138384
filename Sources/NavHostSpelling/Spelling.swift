/// The name a mistyped one was probably meant to be: `naviagte` for `navigate`, `products.lsit` for
/// `products.list`, `sumary` for a manifest's `summary`. One rule for every "did you mean": the command lines'
/// commands, navctl's names and the plugin host's manifest fields.
public enum Spelling {
    /// The name of `names` closest to `word` within the edits a slip makes (the fewest wins, the first of equals):
    /// one for a `word` of three to seven characters, two for a longer one, so that `Nope` is not taken for `Home`.
    /// Else, for a `word` of three characters or more, the first name it begins. `nil` when none is that close or
    /// `word` is one of them.
    public static func closest(to word: String, among names: [String]) -> String? {
        guard !names.contains(word) else { return nil }
        let allowed = word.count < 3 ? 0 : word.count < 8 ? 1 : 2
        let scored = names.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= allowed }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        return word.count >= 3 ? names.first { $0.hasPrefix(word) } : nil
    }

    /// The Levenshtein distance between `a` and `b`, an adjacent swap counting as one edit (`naviagte`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
