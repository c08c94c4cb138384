public import NavHostCore
public import NavHostWire

/// A live view of the plugins: every plugin's status first, then one ``PluginEvent`` per change (see ``Watcher``).
///
/// The screens a change rebuilds or pops are not part of it: they reach each session's watchers as ordinary
/// revisions of that session.
public typealias PluginWatcher = Watcher<[PluginStatus], PluginEvent>
