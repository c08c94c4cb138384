/// A session's flight recorder: its last calls, each with its outcome and the stack it left, bounded in memory.
///
/// It starts with the session's stack (the *base*); when it is full, the oldest call goes and the stack it left
/// becomes the base, so what it holds always replays from a known stack. ``SessionRecording`` is what it hands out.
struct FlightRecorder {
    /// The stack the first held call started from, and the random numbers drawn before that call.
    private(set) var base: SessionRecording.Base
    private var calls: [RecordedCall] = []
    private var start = 0
    /// How many calls were dropped to stay within ``capacity``.
    private(set) var dropped = 0
    /// The most calls it holds; 0 records nothing.
    let capacity: Int

    init(capacity: Int, base: SessionRecording.Base) {
        self.capacity = max(capacity, 0)
        self.base = base
    }

    var isEnabled: Bool { capacity > 0 }

    /// Files a call; the random numbers drawn since the previous one go to that one (or to the base).
    mutating func append(_ call: RecordedCall, drawnBefore: [UInt64]) {
        guard isEnabled else { return }
        addDrawn(drawnBefore)
        if calls.count < capacity {
            calls.append(call)
            return
        }
        let oldest = calls[start]
        base = SessionRecording.Base(revision: oldest.revision, stack: oldest.stack, random: oldest.random)
        calls[start] = call
        start = (start + 1) % capacity
        dropped += 1
    }

    /// Files random numbers drawn after the latest call (work it started that is still running).
    mutating func addDrawn(_ drawn: [UInt64]) {
        guard isEnabled, !drawn.isEmpty else { return }
        let hex = drawn.map(\.recordedHex)
        if calls.isEmpty {
            base.random += hex
        } else {
            let latest = (start + calls.count - 1) % calls.count
            calls[latest].random += hex
        }
    }

    /// The held calls, oldest first.
    var heldCalls: [RecordedCall] { Array(calls[start...] + calls[..<start]) }
}
