public import NavHostWire

/// A live view of one session: a full snapshot first, then one event per revision (see ``Watcher``).
public typealias SessionWatcher = Watcher<SessionSnapshot, SessionEvent>
