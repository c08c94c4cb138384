// `HostServices.logger` is a swift-log `Logger`; features log through it without importing swift-log themselves,
// and so never link a second copy of it.
@_exported public import Logging
// The JSON layer is part of the SDK: routes, intents and states are JSON on the wire.
@_exported public import NavHostJSON
