public import NavHostVarlink
public import NavHostWire

extension InvalidParameterError: VarlinkErrorConvertible {
    /// The error as the Varlink specification declares it: `org.varlink.service.InvalidParameter`, naming the
    /// parameter.
    public var varlinkError: VarlinkError { .invalidParameter(parameter) }
}
