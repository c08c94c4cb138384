internal import NavHostClient
internal import NavHostJSON

// MARK: - InspectorHub

/// What the inspector knows of the daemon, and the pages it pushes every change to.
///
/// The feeds (``InspectorSessionFeed``, ``InspectorPluginFeed``) write here; every open websocket is a subscriber that
/// gets a `snapshot` message first and then each change, in order. A subscriber that falls too far behind is dropped
/// (its stream ends, its websocket closes) rather than buffered without bound: the page connects again and starts
/// from a fresh snapshot.
actor InspectorHub {
    // MARK: - Private Properties

    private struct FollowedSession {
        var document: JSONValue = .null
        var timeline: InspectorTimeline
    }

    private let timelineCapacity: Int
    private let subscriberBacklog: Int
    private var sessions: [String: FollowedSession] = [:]
    private var plugins: JSONValue = []
    private var routes: JSONValue = []
    private var connected = false
    private var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextSubscriberID = 0
    private var finished = false

    // MARK: - Initialization

    /// A hub keeping `timelineCapacity` revisions per session, and at most `subscriberBacklog` unsent messages per
    /// page.
    init(timelineCapacity: Int, subscriberBacklog: Int = 512) {
        self.timelineCapacity = max(1, timelineCapacity)
        self.subscriberBacklog = max(1, subscriberBacklog)
    }

    // MARK: - Subscribing

    /// A new page's messages, starting with the snapshot; ``unsubscribe(_:)`` with the ID when the page goes.
    func subscribe() -> (id: Int, messages: AsyncStream<String>) {
        let (messages, continuation) = AsyncStream.makeStream(
            of: String.self,
            bufferingPolicy: .bufferingOldest(subscriberBacklog)
        )
        let id = nextSubscriberID
        nextSubscriberID += 1
        // A page that connects while the inspector stops gets nothing but the end.
        guard !finished else {
            continuation.finish()
            return (id, messages)
        }
        subscribers[id] = continuation
        deliver(InspectorMessage.text(snapshot()), to: id)
        return (id, messages)
    }

    /// Ends a page's messages.
    func unsubscribe(_ id: Int) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    /// Sends `message` to one page only: the answer to its request.
    func send(_ message: JSONValue, to id: Int) {
        deliver(InspectorMessage.text(message), to: id)
    }

    // MARK: - Sessions

    /// The names of the sessions followed now.
    var followedSessions: Set<String> { Set(sessions.keys) }

    /// Starts keeping `name`; returns `false` when it is already followed.
    func startFollowing(_ name: String) -> Bool {
        guard sessions[name] == nil else { return false }
        sessions[name] = FollowedSession(timeline: InspectorTimeline(capacity: timelineCapacity))
        return true
    }

    /// A followed session reached a new revision.
    func sessionMoved(_ name: String, document: JSONValue, entry: InspectorTimeline.Entry) {
        guard var session = sessions[name] else { return }
        session.document = document
        session.timeline.append(entry)
        sessions[name] = session
        broadcast(InspectorMessage.session(name, document: document, entry: entry))
    }

    /// A session's watch ended: it closed, or the daemon went away.
    func sessionEnded(_ name: String) {
        guard sessions.removeValue(forKey: name) != nil else { return }
        broadcast(InspectorMessage.sessionClosed(name))
    }

    /// The timeline kept for `name`, for tests and diagnostics.
    func timeline(of name: String) -> InspectorTimeline? {
        sessions[name]?.timeline
    }

    // MARK: - Plugins and the daemon

    /// The plugins or the routes changed.
    func pluginsChanged(plugins: JSONValue, routes: JSONValue) {
        self.plugins = plugins
        self.routes = routes
        broadcast(InspectorMessage.plugins(plugins, routes: routes))
    }

    /// The inspector reached the daemon, or lost it.
    func daemonConnected(_ connected: Bool) {
        guard connected != self.connected else { return }
        self.connected = connected
        broadcast(InspectorMessage.daemon(connected: connected))
    }

    /// Ends every page's messages, when the inspector stops.
    func finish() {
        finished = true
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }
}

// MARK: - Private Functions

private extension InspectorHub {
    func snapshot() -> JSONValue {
        InspectorMessage.snapshot(
            connected: connected,
            timelineCapacity: timelineCapacity,
            sessions: sessions.sorted { $0.key < $1.key }.map { ($0.key, $0.value.document, $0.value.timeline) },
            plugins: plugins,
            routes: routes
        )
    }

    func broadcast(_ message: JSONValue) {
        let text = InspectorMessage.text(message)
        for id in subscribers.keys { deliver(text, to: id) }
    }

    func deliver(_ text: String, to id: Int) {
        guard let continuation = subscribers[id] else { return }
        if case .dropped = continuation.yield(text) {
            // Too far behind: end its stream, so that its page starts again from a snapshot.
            subscribers.removeValue(forKey: id)
            continuation.finish()
        }
    }
}
