// Whether two records, or two stacks, hold the same: asked several times for each change the persistence looks at,
// so compared in place, the likeliest difference first.

extension SessionRecord {
    /// Whether `other` holds what this record holds, the revision aside (`durableContent == other.durableContent`,
    /// without the copies).
    package func hasDurableContent(of other: SessionRecord) -> Bool {
        hasBookkeeping(of: other) && Self.isSameStack(stack, other.stack)
    }

    /// Whether `other` holds what this record holds apart from its stack and its revision: its session, screen
    /// numbers and revision reservation.
    func hasBookkeeping(of other: SessionRecord) -> Bool {
        reservedRevision == other.reservedRevision && nextScreenNumber == other.nextScreenNumber
            && session == other.session
    }

    /// Whether `stack` and `other` are equal (`==`), compared from the top screen down, and each screen's identity
    /// before its values: a change is most often the top screen's restorable state, which `==` reached last, after
    /// every screen below, their parameters and states compared member by member. The persistence asks this several
    /// times per change (about 27,000 instructions per state-changing `Send` through `==`).
    static func isSameStack(_ stack: [Screen], _ other: [Screen]) -> Bool {
        guard stack.count == other.count else { return false }
        // Through pointers: an element read from an array or a buffer is copied out of it (a resilient `JSONValue`
        // in each screen makes that calls through the runtime's witnesses), one a pointer addresses is not.
        return stack.withUnsafeBufferPointer { screens in
            other.withUnsafeBufferPointer { others in
                guard let screens = screens.baseAddress, let others = others.baseAddress else { return true }
                // One storage: equal, as `==` finds first too (the persistence shares a stack found equal).
                if screens == others { return true }
                for index in (0..<stack.count).reversed()
                where !Screen.isSame(screens + index, others + index) {
                    return false
                }
                return true
            }
        }
    }
}

extension SessionRecord {
    /// Compares stacks as ``SessionRecord/isSameStack(_:_:)`` does, and remembers the last two it found different:
    /// asked about the same two again, it answers at once. The same two means the same storage, which an array held
    /// here keeps to itself: a stack stored elsewhere is copied before it changes, and no other array is given it.
    struct DifferentStacks: Sendable {
        private var last: (stack: [Screen], other: [Screen])?

        init() {}

        /// Whether `stack` and `other` are equal.
        mutating func isSame(_ stack: [Screen], _ other: [Screen]) -> Bool {
            if let last, Self.shareStorage(last.stack, stack), Self.shareStorage(last.other, other) { return false }
            guard SessionRecord.isSameStack(stack, other) else {
                last = (stack, other)
                return false
            }
            return true
        }

        /// Whether `stack` and `other` are one array's storage: equal, whatever they hold.
        private static func shareStorage(_ stack: [Screen], _ other: [Screen]) -> Bool {
            guard stack.count == other.count else { return false }
            return stack.withUnsafeBufferPointer { storage in
                other.withUnsafeBufferPointer { $0.baseAddress == storage.baseAddress }
            }
        }
    }
}

extension SessionRecord.Screen {
    /// Whether the screens `screen` and `other` point to are equal (`==`), their identity and route compared before
    /// their states and parameters, which take longer and differ less often.
    fileprivate static func isSame(_ screen: UnsafePointer<Self>, _ other: UnsafePointer<Self>) -> Bool {
        guard
            screen.pointee.id == other.pointee.id, screen.pointee.route == other.pointee.route,
            screen.pointee.presentation == other.pointee.presentation,
            screen.pointee.openedBy == other.pointee.openedBy
        else { return false }
        // Unwrapped one at a time: `==` of two optionals copies both into a pair first.
        if let restorable = screen.pointee.restorable {
            guard let otherRestorable = other.pointee.restorable, restorable == otherRestorable else { return false }
        } else if other.pointee.restorable != nil {
            return false
        }
        return screen.pointee.parameters == other.pointee.parameters
    }
}
