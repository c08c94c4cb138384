/// One line of the results table: a NavHost figure, the floor's comparable figure when there is one, the ratio, and
/// the target from issue 10 when it sets one; and, for the intents the peers also serve, the Python peer's figure, the
/// ratio to it and the target against it, and the Go peer's figure and the ratio to it (no target: issue #17 sets its
/// targets against the Python peer).
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

    /// What NavHost is held to against the Python peer (`Benchmarks/Peer`).
    enum PeerTarget {
        /// The value must not exceed the peer's divided by this: a time this many times shorter.
        case fasterBy(Double)
        /// The value must reach at least this many times the peer's: a throughput this many times higher.
        case throughputTimes(Double)

        var text: String {
            switch self {
            case .fasterBy(let factor): return "≤ peer ÷ \(factor.compact)"
            case .throughputTimes(let factor): return "≥ \(factor.compact)× peer"
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
    /// The Python peer's comparable figure, in the same unit; `nil` when the peer was not measured.
    var peer: Double?
    /// The target against the peer; its status is pending when the peer phase ran without a figure.
    var peerTarget: PeerTarget?
    /// The Go peer's comparable figure (`Benchmarks/Peer/go`), in the same unit; `nil` when it was not measured.
    var goPeer: Double?
    /// Why a figure is missing, or how to read it.
    var note: String?

    /// `value / floor`.
    var ratio: Double? {
        guard let value, let floor, floor > 0 else { return nil }
        return value / floor
    }

    /// `value / peer`.
    var peerRatio: Double? {
        guard let value, let peer, peer > 0 else { return nil }
        return value / peer
    }

    /// `value / goPeer`.
    var goPeerRatio: Double? {
        guard let value, let goPeer, goPeer > 0 else { return nil }
        return value / goPeer
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

    /// Whether the target against the peer is met.
    var peerStatus: Status {
        guard let peerTarget else { return .none }
        guard let peerRatio else { return .pending }
        switch peerTarget {
        case .fasterBy(let factor): return peerRatio * factor <= 1 ? .met : .missed
        case .throughputTimes(let factor): return peerRatio >= factor ? .met : .missed
        }
    }

    /// How many of the row's targets (against the floor or a value, and against the peer) have `status`.
    func count(_ status: Status) -> Int {
        (self.status == status ? 1 : 0) + (peerStatus == status ? 1 : 0)
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
        if peer != nil || peerTarget != nil {
            members += [
                ("peer", .rounded(peer)),
                ("peerRatio", .rounded(peerRatio)),
                ("peerTarget", peerTarget.map { .string($0.text) } ?? .null),
                ("peerStatus", .string(peerStatus.rawValue)),
            ]
        }
        if goPeer != nil {
            members += [("goPeer", .rounded(goPeer)), ("goPeerRatio", .rounded(goPeerRatio))]
        }
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

/// Prints the rows as an aligned table. The Python peer's columns (its figure and NavHost's ratio to it) are there
/// when a row has a figure or a target against it, the Go peer's when a row has its figure; a row with two targets
/// lists both, and both statuses, in order.
enum ResultTable {
    static func render(_ rows: [ResultRow]) -> String {
        let columns = self.columns(rows)
        let cells = rows.map { row in columns.map { $0.cell(row) } }
        var widths = columns.map(\.header.count)
        for line in cells {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { column, value in
                let padding = String(repeating: " ", count: widths[column] - value.count)
                return columns[column].alignedRight ? padding + value : value + padding
            }.joined(separator: "  ")
        }
        var text = line(columns.map(\.header)) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in cells { text += line(row) + "\n" }
        return text
    }

    /// The rows as a Markdown table, for BENCHMARKS.md.
    static func markdown(_ rows: [ResultRow]) -> String {
        let columns = self.columns(rows)
        var text = "| " + columns.map(\.header).joined(separator: " | ") + " |\n"
        text += "|" + columns.map { $0.alignedRight ? "---:" : "---" }.joined(separator: "|") + "|\n"
        for row in rows {
            text += "| " + columns.map { $0.cell(row) }.joined(separator: " | ") + " |\n"
        }
        return text
    }

    // MARK: - Columns

    /// One column: its header, how it is aligned, and its text for a row.
    private struct Column {
        var header: String
        var alignedRight: Bool
        var cell: (ResultRow) -> String
    }

    /// The columns of `rows`: each peer's only when some row compares with it.
    private static func columns(_ rows: [ResultRow]) -> [Column] {
        let withPeer = rows.contains { $0.peer != nil || $0.peerTarget != nil }
        var columns = [
            Column(header: "measurement", alignedRight: false) { $0.label },
            Column(header: "NavHost", alignedRight: true) { row in
                row.value.map { quantity($0, unit: row.unit) } ?? "pending"
            },
            Column(header: "floor", alignedRight: true) { row in row.floor.map { quantity($0, unit: row.unit) } ?? "" },
            Column(header: "ratio", alignedRight: true) { row in row.ratio.map { "\($0.fixed(2))×" } ?? "" },
        ]
        if withPeer {
            columns += [
                Column(header: "Python peer", alignedRight: true) { row in
                    row.peer.map { quantity($0, unit: row.unit) } ?? ""
                },
                Column(header: "Python ratio", alignedRight: true) { row in
                    row.peerRatio.map { "\($0.fixed(2))×" } ?? ""
                },
            ]
        }
        if rows.contains(where: { $0.goPeer != nil }) {
            columns += [
                Column(header: "Go peer", alignedRight: true) { row in
                    row.goPeer.map { quantity($0, unit: row.unit) } ?? ""
                },
                Column(header: "Go ratio", alignedRight: true) { row in
                    row.goPeerRatio.map { "\($0.fixed(2))×" } ?? ""
                },
            ]
        }
        columns += [
            Column(header: "target", alignedRight: false) { row in
                [row.target?.text, row.peerTarget?.text].compactMap { $0 }.joined(separator: "; ")
            },
            Column(header: "status", alignedRight: false) { row in
                [row.status, row.peerStatus].filter { $0 != .none }.map(\.rawValue).joined(separator: "; ")
            },
        ]
        return columns
    }

    /// A figure with its unit, like `170.2 µs`.
    private static func quantity(_ value: Double, unit: String) -> String {
        "\(format(value, unit: unit)) \(unit)".trimmingSuffix()
    }

    private static func format(_ value: Double, unit: String) -> String {
        switch unit {
        case "req/s", "KB": return value.fixed(0)
        case "µs": return value.fixed(1)
        default: return value.fixed(2)
        }
    }
}
