/// The open sessions by name, each marked as the one open under its name while it is (``NavigationSession/isOpen``).
///
/// The mark answers "is this session still the open one of its name?" without hashing the name: every call that
/// commits asks it (``SessionRegistry/hasLostItsRecord(_:)``), about 300 instructions a look-up. It changes only
/// here, with the table, so the two always agree.
@MainActor
struct OpenSessions {
    private var byName: [String: NavigationSession] = [:]

    /// The session open under `name`.
    subscript(name: String) -> NavigationSession? { byName[name] }

    /// The open sessions' names, in no order.
    var names: Dictionary<String, NavigationSession>.Keys { byName.keys }

    /// The open sessions, in no order.
    var all: Dictionary<String, NavigationSession>.Values { byName.values }

    /// Makes `session` the one open under its name.
    mutating func insert(_ session: NavigationSession) {
        byName[session.name]?.isOpen = false
        byName[session.name] = session
        session.isOpen = true
    }

    /// Takes the session open under `name` out of the table.
    mutating func remove(named name: String) -> NavigationSession? {
        let session = byName.removeValue(forKey: name)
        session?.isOpen = false
        return session
    }

    /// Takes every session out of the table.
    mutating func removeAll() {
        for session in byName.values { session.isOpen = false }
        byName.removeAll()
    }
}
