public import NavHostJSON

// The session as one JSON document that merge patches can follow (Watch with "changes": "merge-patch").

extension SessionSnapshot {
    /// The session as a document keyed by screen, canonical (``JSONMergePatch/canonical(_:)``): the stack as the
    /// screens' IDs, root first, and each screen under its ID, so that a change to one screen's state is a patch of
    /// that screen alone.
    ///
    /// ```json
    /// {"revision":7,"screens":{"s1":{"parameters":{},"presentation":"push","route":"home.main","state":{…}},
    ///  "s2":{…}},"session":"main","stack":["s1","s2"]}
    /// ```
    public var document: JSONValue {
        var screens = JSONObject()
        for screen in stack {
            var members: JSONObject = [
                "route": .string(screen.route.id),
                "parameters": .object(screen.route.parameters),
                "presentation": .string(screen.presentation.rawValue),
                "state": screen.state,
            ]
            if let error = screen.error { members["error"] = .string(error) }
            screens[screen.id.rawValue] = .object(members)
        }
        return JSONMergePatch.canonical([
            "session": .string(session),
            "revision": jsonInteger(revision),
            "stack": .array(stack.map { .string($0.id.rawValue) }),
            "screens": .object(screens),
        ])
    }

    /// Applies one event, as the daemon applied it, and takes its revision.
    ///
    /// An event at or below the current revision is already part of this snapshot and changes nothing. Screens an
    /// event names but the stack does not hold are skipped.
    public mutating func apply(_ event: SessionEvent) {
        guard event.revision > revision else { return }
        revision = event.revision
        switch event.change {
        case .pushed(let screen):
            stack.append(screen)
        case .popped(let removed):
            let removedIDs = Set(removed)
            stack.removeAll { removedIDs.contains($0.id) }
        case .replaced(let screens):
            stack = screens
        case .stateChanged(let id, let state):
            if let index = stack.lastIndex(where: { $0.id == id }) { stack[index].state = state }
        case .errorChanged(let id, let error):
            if let index = stack.lastIndex(where: { $0.id == id }) { stack[index].error = error }
        }
    }
}
