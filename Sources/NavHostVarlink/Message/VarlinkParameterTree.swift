internal import CJSONC
package import NavHostJSON

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A call's parameters as json-c parsed them: the object ``VarlinkCallReader`` read a call from, kept instead of a
/// ``JSONObject`` made of it.
///
/// The validator checks them here (``VarlinkInterface/validateInput(of:_:)``), and a handler that reads a few members
/// reads them here (``VarlinkParameterReader``): a `Send` makes no `JSONObject` of its parameters, only of its
/// intent's arguments. Made into a `JSONObject` first, then checked and looked up in it, they cost 2,300 instructions
/// more per pipelined `Send` (callgrind: 61,817 against 59,480), most of it copies of the SDK's `JSONObject` and
/// `JSONValue` through the runtime's witnesses.
///
/// Every value in it is one ``VarlinkCallReader`` reads: no number json-c made infinite, no integer it read as a limit
/// (the reader leaves those messages to the general reading).
///
/// Sendable: json-c's objects are read, never changed, after the parse, and json-c reads them without writing (its
/// reference count is touched only here, at the end). The last copy of the call lets the object go, on whichever
/// thread that is.
final class VarlinkParameterTree: @unchecked Sendable {
    /// The parameters' object; this tree holds a reference to it.
    let object: OpaquePointer

    /// Takes a reference to `object`, a json-c object whose values ``VarlinkCallReader`` reads.
    init(retaining object: OpaquePointer) {
        self.object = object
        json_object_get(object)
    }

    deinit {
        json_object_put(object)
    }

    /// The parameters as a ``JSONObject``, made anew at each call.
    func jsonObject() -> JSONObject {
        // The reader checked every value before it kept the tree: none throws.
        (try? VarlinkCallReader.members(object)) ?? JSONObject()
    }

    /// The string member `key`; `nil` when there is none, or it is not a string.
    func string(forKey key: StaticString) -> String? {
        guard let member = self.member(key), json_object_get_type(member) == json_type_string else { return nil }
        return VarlinkCallReader.string(member)
    }

    /// The object member `key`, as a ``JSONObject``; `nil` when there is none, or it is not an object.
    func object(forKey key: StaticString) -> JSONObject? {
        guard let member = self.member(key), json_object_get_type(member) == json_type_object else { return nil }
        return try? VarlinkCallReader.members(member)
    }

    /// The member `key`; `nil` when there is none (or it is `null`).
    ///
    /// Found by walking the members, not by json-c's look-up: a call's parameters are a handful, and the look-up
    /// hashes the key first (about 400 instructions for each of a `Send`'s three members, walking about 150).
    private func member(_ key: StaticString) -> OpaquePointer? {
        let wanted = UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self)
        var iterator = json_object_iter_begin(object)
        var end = json_object_iter_end(object)
        while json_object_iter_equal(&iterator, &end) == 0 {
            if let name = json_object_iter_peek_name(&iterator), strcmp(name, wanted) == 0 {
                return json_object_iter_peek_value(&iterator)
            }
            json_object_iter_next(&iterator)
        }
        return nil
    }
}

// MARK: - Reading a call's parameters

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
