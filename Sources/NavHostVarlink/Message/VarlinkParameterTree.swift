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
/// The validator checks them here (``VarlinkInterface/validateInput(of:against:)``), and a handler that reads a few members
/// reads them here (``VarlinkParameterReader``): a `Send` makes no `JSONObject` of its parameters, only of its
/// intent's arguments. Made into a `JSONObject` first, then checked and looked up in it, they cost 2,400 instructions
/// more per pipelined `Send` and 3,700 per lone one (callgrind: 61,817 against 59,419, and 74,609 against 70,866),
/// most of it copies of the SDK's `JSONObject` and `JSONValue` through the runtime's witnesses.
///
/// Every value in it is one ``VarlinkCallReader`` reads: no number json-c made infinite, no integer it read as a limit
/// (the reader leaves those messages to the general reading).
///
/// Sendable: after the parse json-c's objects are only read, by functions that write nothing (type, length and
/// iteration; `json_object_get_string` of a string), never printed (`json_object_to_json_string` writes the object's
/// print buffer) and never handed out (``object`` is private). Their reference count, which json-c does not change
/// atomically, is taken once, here, before the call leaves the thread that read it, and given back once, in `deinit`,
/// after the last Swift reference is gone.
final class VarlinkParameterTree: @unchecked Sendable {
    /// The parameters' object; this tree holds a reference to it.
    private let object: OpaquePointer

    /// Takes a reference to `object`, a json-c object whose values ``VarlinkCallReader`` reads: one its
    /// `isReadable(_:)` passed, as the tree's readers, which make values of it and trap on any other, rely on.
    init(retaining object: OpaquePointer) {
        assert(VarlinkCallReader.isReadable(object), "a tree of values the reader leaves to the general reading")
        self.object = object
        json_object_get(object)
    }

    deinit {
        json_object_put(object)
    }

    /// `body`'s result for the parameters' members, as the validator walks them.
    func withMembers<Result>(_ body: (JSONCMembers) throws -> Result) rethrows -> Result {
        try body(JSONCMembers(object))
    }

    /// The parameters as a ``JSONObject``, made anew at each call.
    func jsonObject() -> JSONObject {
        VarlinkCallReader.members(object)
    }

    /// The string member `key`; `nil` when there is none, or it is not a string.
    func string(forKey key: StaticString) -> String? {
        guard let member = self.member(key), json_object_get_type(member) == json_type_string else { return nil }
        return VarlinkCallReader.string(member)
    }

    /// The object member `key`, as a ``JSONObject``; `nil` when there is none, or it is not an object.
    func object(forKey key: StaticString) -> JSONObject? {
        guard let member = self.member(key), json_object_get_type(member) == json_type_object else { return nil }
        return VarlinkCallReader.members(member)
    }

    /// The member `key`; `nil` when there is none (or it is `null`).
    ///
    /// Found by walking the members, not by json-c's look-up: a call's parameters are a handful, and the look-up
    /// hashes the key first (callgrind, a `Send`'s four look-ups: 1,266 instructions by json-c's, 1,124 walking).
    private func member(_ key: StaticString) -> OpaquePointer? {
        // `withUTF8Buffer`, not `utf8Start`: a one-character literal has no pointer.
        key.withUTF8Buffer { wanted in
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&iterator, &end) == 0 {
                if let name = json_object_iter_peek_name(&iterator), strlen(name) == wanted.count,
                    wanted.isEmpty || memcmp(name, wanted.baseAddress!, wanted.count) == 0
                {
                    return json_object_iter_peek_value(&iterator)
                }
                json_object_iter_next(&iterator)
            }
            return nil
        }
    }
}
