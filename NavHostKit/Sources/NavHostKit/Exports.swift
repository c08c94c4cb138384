// The JSON layer is part of the SDK: routes, intents and states are JSON on the wire.
@_exported public import NavHostJSON
