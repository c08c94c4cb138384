/// A parameter that has the type its interface declares but a value the method cannot take: a negative revision, an
/// option of zero, a `changes` mode no one knows.
///
/// The daemon answers it as `org.varlink.service.InvalidParameter`, naming the parameter.
public struct InvalidParameterError: Error, Sendable, Hashable {
    /// The parameter's path, like `options.maxStackDepth`.
    public var parameter: String

    /// The error for the parameter at `parameter`.
    public init(_ parameter: String) {
        self.parameter = parameter
    }
}
