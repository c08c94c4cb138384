/// Lets other work on the main actor run until `condition` holds, a bounded number of times; no sleeping.
///
/// For effects that arrive through a stream a ViewModel follows (a repository's changes,
/// `HostServices.optionalFeatures`): the test cannot await them directly.
///
/// ```swift
/// services.optionalFeatures.update(present: ["Settings"])
/// #expect(await eventually { home.state.tiles == [.settings] })
/// ```
///
/// - Returns: Whether `condition` held within 1,000 turns of the main actor.
@MainActor
public func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
