public import NavHostWire

/// A live view of the session list: the names first, then one ``SessionListEvent`` per change (see ``Watcher``).
public typealias SessionListWatcher = Watcher<[String], SessionListEvent>
