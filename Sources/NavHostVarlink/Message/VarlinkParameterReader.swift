package import NavHostJSON

/// The members of a call's parameters, for a handler that reads a few of them by name: from the call's
/// ``VarlinkParameterTree`` when it has one, else from its ``JSONObject``. The parameters have been validated.
package struct VarlinkParameterReader {
    private let tree: VarlinkParameterTree?
    private let members: JSONObject?

    init(tree: VarlinkParameterTree) {
        self.tree = tree
        self.members = nil
    }

    init(members: JSONObject) {
        self.tree = nil
        self.members = members
    }

    /// The string member `key`; `nil` when there is none, or it is not a string.
    package func string(_ key: StaticString) -> String? {
        if let tree { return tree.string(forKey: key) }
        return members?[key.description]?.stringValue
    }

    /// The object member `key`; `nil` when there is none, or it is not an object.
    package func object(_ key: StaticString) -> JSONObject? {
        if let tree { return tree.object(forKey: key) }
        return members?[key.description]?.objectValue
    }
}
