public import NavHostCore
public import NavHostVarlink

extension SessionsShutDown: VarlinkErrorConvertible {
    /// The server's shutdown error, `io.navhost.varlink.ServiceShuttingDown`, as a call the stop cuts short gets.
    public var varlinkError: VarlinkError { VarlinkError(name: VarlinkServerConfiguration().shutdownErrorName) }
}
