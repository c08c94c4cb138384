// `JSONObject` is an `OrderedDictionary`; whoever uses the JSON layer gets its API too.
@_exported public import OrderedCollections
