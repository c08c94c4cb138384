/// Plain-text tables: columns separated by two spaces, no spaces at the ends of lines.
enum Table {
    /// The header and the rows, each column as wide as its widest cell.
    static func lines(header: [String], rows: [[String]]) -> [String] {
        // A cell is one line, whatever the daemon sent in it (a plugin's message): its line breaks and other control
        // characters are shown escaped, so that no text can make a row of its own.
        let all = [header] + rows.map { $0.map { Console.escapingControlCharacters($0) } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = row.enumerated().map { column, cell in
                guard column < row.count - 1 else { return cell }
                return cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            .joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// A list in one cell: `a, b`, or `-` when it is empty.
    static func list(_ items: [String]) -> String {
        items.isEmpty ? "-" : items.joined(separator: ", ")
    }
}
