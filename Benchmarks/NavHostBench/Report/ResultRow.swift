/// One line of the results table: a NavHost figure, the floor's comparable figure when there is one, the ratio, and
/// the target from issue 10 when it sets one.
struct ResultRow {
    /// What a figure is compared with.
    enum Target {
        /// `value / floor` must not exceed this.
        case ratioAtMost(Double)
        /// `value / floor` must reach at least this.
        case ratioAtLeast(Double)
        /// The value itself must not exceed this (in the row's unit).
        case valueAtMost(Double)

        var text: String {
            switch self {
            case .ratioAtMost(let limit): return "≤ \(limit.compact)× floor"
            case .ratioAtLeast(let limit): return "≥ \(limit.compact)× floor"
            case .valueAtMost(let limit): return "≤ \(limit.compact)"
            }
        }
    }

    /// Whether the target is met.
    enum Status: String {
        case met, missed, pending
        /// No target for this figure.
        case none = "-"
    }

    /// A stable name for the JSON file, like `roundTrip.p50`.
    var key: String
    /// What the row measures, for people.
    var label: String
    /// The unit of ``value`` and ``floor``.
    var unit: String
    /// The figure; `nil` when it is pending (the feature is not there yet).
    var value: Double?
    /// The floor's comparable figure, in the same unit.
    var floor: Double?
    var target: Target?
    /// Why a figure is missing, or how to read it.
    var note: String?

    /// `value / floor`.
    var ratio: Double? {
        guard let value, let floor, floor > 0 else { return nil }
        return value / floor
    }

    var status: Status {
        guard let target else { return .none }
        guard let value else { return .pending }
        switch target {
        case .ratioAtMost(let limit):
            guard let ratio else { return .pending }
            return ratio <= limit ? .met : .missed
        case .ratioAtLeast(let limit):
            guard let ratio else { return .pending }
            return ratio >= limit ? .met : .missed
        case .valueAtMost(let limit):
            return value <= limit ? .met : .missed
        }
    }

    /// The row for the results file.
    var report: ReportValue {
        var members: [(String, ReportValue)] = [
            ("key", .string(key)),
            ("label", .string(label)),
            ("unit", .string(unit)),
            ("value", .rounded(value)),
            ("floor", .rounded(floor)),
            ("ratio", .rounded(ratio)),
            ("target", target.map { .string($0.text) } ?? .null),
            ("status", .string(status.rawValue)),
        ]
        if let note { members.append(("note", .string(note))) }
        return .object(members)
    }
}

extension Double {
    /// The shortest text for a limit: `2` rather than `2.0`.
    var compact: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : description
    }
}

/// Prints the rows as an aligned table.
enum ResultTable {
    static func render(_ rows: [ResultRow]) -> String {
        let header = ["measurement", "NavHost", "floor", "ratio", "target", "status"]
        let cells: [[String]] = rows.map { row in
            [
                row.label,
                row.value.map { "\(format($0, unit: row.unit)) \(row.unit)".trimmingSuffix() } ?? "pending",
                row.floor.map { "\(format($0, unit: row.unit)) \(row.unit)".trimmingSuffix() } ?? "",
                row.ratio.map { "\($0.fixed(2))×" } ?? "",
                row.target?.text ?? "",
                row.status == .none ? "" : row.status.rawValue,
            ]
        }
        var widths = header.map(\.count)
        for line in cells {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { column, value in
                let padding = String(repeating: " ", count: widths[column] - value.count)
                return column == 0 || column >= 4 ? value + padding : padding + value
            }.joined(separator: "  ")
        }
        var text = line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in cells { text += line(row) + "\n" }
        return text
    }

    /// The rows as a Markdown table, for BENCHMARKS.md.
    static func markdown(_ rows: [ResultRow]) -> String {
        var text = "| measurement | NavHost | floor | ratio | target | status |\n|---|---:|---:|---:|---|---|\n"
        for row in rows {
            let value = row.value.map { "\(format($0, unit: row.unit)) \(row.unit)".trimmingSuffix() } ?? "pending"
            let floor = row.floor.map { "\(format($0, unit: row.unit)) \(row.unit)".trimmingSuffix() } ?? ""
            let ratio = row.ratio.map { "\($0.fixed(2))×" } ?? ""
            let status = row.status == .none ? "" : row.status.rawValue
            text += "| \(row.label) | \(value) | \(floor) | \(ratio) | \(row.target?.text ?? "") | \(status) |\n"
        }
        return text
    }

    private static func format(_ value: Double, unit: String) -> String {
        switch unit {
        case "req/s", "KB": return value.fixed(0)
        case "µs": return value.fixed(1)
        default: return value.fixed(2)
        }
    }
}
