public import NavHostJSON

/// JSON merge patches (RFC 7386): the members that changed between two documents, `null` for the members removed.
///
/// ```swift
/// let patch = JSONMergePatch.difference(from: ["a": 1, "b": 2], to: ["a": 1, "c": 3])   // {"b": null, "c": 3}
/// var document: JSONValue = ["a": 1, "b": 2]
/// JSONMergePatch.apply(patch!, to: &document)                                         // {"a": 1, "c": 3}
/// ```
///
/// A merge patch cannot say "this member is null" (null removes it) and replaces arrays whole, so the documents it
/// carries are canonical: ``canonical(_:)`` leaves out null members and orders members by key, and applying a patch
/// to a canonical document keeps it canonical. Two canonical documents that are equal serialize to the same bytes.
public enum JSONMergePatch {
    /// The patch that turns `old` into `new`, or `nil` when they are equal. Both should be ``canonical(_:)``.
    public static func difference(from old: JSONValue, to new: JSONValue) -> JSONValue? {
        guard old != new else { return nil }
        guard case .object(let oldMembers) = old, case .object(let newMembers) = new else { return new }
        var patch = JSONObject()
        for (key, _) in oldMembers where newMembers[key] == nil { patch[key] = .null }
        for (key, value) in newMembers {
            if let previous = oldMembers[key] {
                if let change = difference(from: previous, to: value) { patch[key] = change }
            } else {
                patch[key] = value
            }
        }
        return .object(canonicalMembers(patch, keepingNulls: true))
    }

    /// Applies `patch` to `document` as RFC 7386 says: an object merges member by member (`null` removes one),
    /// anything else replaces what it patches. The result is canonical when `document` was.
    public static func apply(_ patch: JSONValue, to document: inout JSONValue) {
        guard case .object(let changes) = patch else {
            document = patch
            return
        }
        var members: JSONObject
        if case .object(let existing) = document { members = existing } else { members = JSONObject() }
        for (key, change) in changes {
            if change == .null {
                _ = members.removeValue(forKey: key)
            } else {
                var value = members[key] ?? .null
                apply(change, to: &value)
                members[key] = value
            }
        }
        document = .object(canonicalMembers(members, keepingNulls: false))
    }

    /// `value` with every object's null members left out and its members ordered by key, at every depth.
    public static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(canonicalMembers(members.mapValues(canonical), keepingNulls: false))
        case .array(let items): .array(items.map(canonical))
        default: value
        }
    }

    private static func canonicalMembers(_ members: JSONObject, keepingNulls: Bool) -> JSONObject {
        JSONObject(
            uniqueKeysWithValues: members.elements.filter { keepingNulls || $0.value != .null }
                .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { ($0.key, $0.value) }
        )
    }
}
