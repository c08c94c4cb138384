import NavHostJSON
import NavHostKit
import NavHostVarlink
import NavHostWire

extension SendParameters {
    /// Reads a `Send`'s parameters, validated against the interface, where the call keeps them: a call read straight
    /// from json-c's parse makes no `JSONObject` of them, only of the intent's arguments (`VarlinkParameterTree`).
    init(_ parameters: VarlinkParameterReader) {
        self.init(
            session: parameters.string("session"),
            screen: parameters.string("screen").map { ScreenID($0) },
            intent: parameters.string("intent") ?? "",
            arguments: parameters.object("arguments") ?? JSONObject()
        )
    }
}
