import NavHostWire

/// A session's flight recorder: its last calls, each with its outcome and the stack it left, bounded in memory.
///
/// The stack a call left is the one the next call finds: by then the work the call started (a screen's `onAppear`
/// load, a navigation its intent made) has usually finished, as a person's next tap comes after the screen loaded.
/// A replay compares at the same point, once the session has settled. The recorder starts with the session's stack
/// (the *base*); when it is full, the oldest call goes and the stack it left becomes the base, so what it holds
/// always replays from a known stack. ``SessionRecording`` is what it hands out.
@MainActor
struct FlightRecorder {
    /// The stack the first held call started from, and the random numbers drawn before that call.
    private(set) var base: SessionRecording.Base
    private var calls: [RecordedCall] = []
    private var start = 0
    /// Where settled calls are written too, when the recording is kept on disk.
    var file: FlightRecorderFile?
    /// Whether the latest call's stack is still the one right after it (not yet written to ``file``).
    private var latestUnsettled = false
    /// How many calls were dropped to stay within ``capacity``.
    private(set) var dropped = 0
    /// The most calls it holds; 0 records nothing.
    let capacity: Int

    init(capacity: Int, base: SessionRecording.Base) {
        self.capacity = max(capacity, 0)
        self.base = base
    }

    var isEnabled: Bool { capacity > 0 }

    /// The stack the latest call (or, before any, the base) left, when that was at `revision`: every change has a
    /// revision of its own, so a call that finds the session at the same revision finds the same stack, and its entry
    /// shares this one's (an intent that changes nothing, the common case, builds no stack of its own).
    func stack(at revision: UInt64) -> [RecordedScreen]? {
        guard let latest = latestIndex else { return base.revision == revision ? base.stack : nil }
        return calls[latest].revision == revision ? calls[latest].stack : nil
    }

    /// Files `call`, refused with the error named `error` or done, with the session's stack right after it: the
    /// latest entry's when that was taken at the same `revision` (``stack(at:)``), else `stack`, read only then.
    /// The call is taken into the entry, not copied.
    mutating func file(
        _ call: consuming SessionCall,
        refusedWith error: String?,
        at revision: UInt64,
        stack: @autoclosure () -> [RecordedScreen]
    ) {
        guard isEnabled else { return }
        let stack = self.stack(at: revision) ?? stack()
        append(RecordedCall(call: call, error: error, revision: revision, stack: stack))
    }

    /// Files a call, with the stack right after it; ``settleLatest(revision:stack:drawn:)`` replaces that stack
    /// with the one the next call finds.
    ///
    /// Every `Send` files one: the entry is taken, not copied, and the one it replaces is read in place, not copied
    /// whole for the three members the base keeps (each copy of the entry goes through the value witnesses of the
    /// SDK's resilient types in its call).
    mutating func append(_ call: consuming RecordedCall) {
        guard isEnabled else { return }
        latestUnsettled = true
        if calls.count < capacity {
            calls.append(call)
            return
        }
        base = SessionRecording.Base(
            revision: calls[start].revision,
            stack: calls[start].stack,
            random: calls[start].random
        )
        calls[start] = call
        start = (start + 1) % capacity
        dropped += 1
    }

    /// Records what the latest call (or, before any, the base) left once its work went on: the session's `stack` at
    /// `revision` as the next call finds it (or as a recording is taken), and the random numbers `drawn` since.
    /// `stack` is read only when `revision` moved on since it was last taken: every change has a revision of its own.
    mutating func settleLatest(revision: UInt64, stack: @autoclosure () -> [RecordedScreen], drawn: [UInt64]) {
        guard isEnabled else { return }
        let hex = drawn.map(\.recordedHex)
        if let latest = latestIndex {
            if calls[latest].revision != revision {
                calls[latest].revision = revision
                calls[latest].stack = stack()
            }
            calls[latest].random += hex
            if latestUnsettled {
                latestUnsettled = false
                file?.write(calls[latest], after: stackBefore(latest))
            }
        } else {
            if base.revision != revision {
                base.revision = revision
                base.stack = stack()
            }
            base.random += hex
        }
    }

    /// Where the latest call is in the ring; `nil` before any.
    private var latestIndex: Int? {
        calls.isEmpty ? nil : (start + calls.count - 1) % calls.count
    }

    /// What the call at `index` started from: the call held before it, or the base (which, once the ring is full, is
    /// the call dropped last).
    private func stackBefore(_ index: Int) -> SessionRecording.Base {
        guard calls.count > 1 else { return base }
        return SessionRecording.Base(after: calls[(index + calls.count - 1) % calls.count])
    }

    /// The held calls, oldest first.
    var heldCalls: [RecordedCall] { Array(calls[start...] + calls[..<start]) }
}
