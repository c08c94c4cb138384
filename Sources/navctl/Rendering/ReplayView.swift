import NavHostWire

/// What `navctl replay` prints: "identical", or the first call that differs and how.
enum ReplayView {
    static func lines(_ report: ReplayReport, of recording: SessionRecording) -> [String] {
        let reached = "\(report.calls) of \(recording.calls.count) calls, to revision \(report.revision)"
        let kept = report.leftOpen ? "; session \(report.session) is kept" : ""
        guard let difference = report.difference else { return ["identical (\(reached))\(kept)"] }
        let which = difference.call == 0 ? "the first stack" : "call \(difference.call) (\(difference.method ?? "?"))"
        var lines = [
            "differs at revision \(difference.revision): \(which); replayed revision \(difference.replayedRevision) "
                + "(session \(report.session) numbers its own)\(kept)"
        ]
        if difference.recordedError != difference.replayedError {
            lines.append("  recorded: \(difference.recordedError ?? "done")")
            lines.append("  replayed: \(difference.replayedError ?? "done")")
        }
        if let patch = difference.patch {
            lines.append("  stack patch, recorded → replayed (screens by position, 0 the root):")
            lines += patch.prettyPrintedLines(margin: "    ")
        }
        return lines
    }
}
