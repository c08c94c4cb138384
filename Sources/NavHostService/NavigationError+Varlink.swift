public import NavHostCore
public import NavHostVarlink

extension NavigationError: VarlinkErrorConvertible {
    /// The error as `io.navhost.Navigation` declares it, like `io.navhost.Navigation.RouteNotFound`.
    public var varlinkError: VarlinkError {
        VarlinkError(name: "\(NavigationInterface.name).\(code.name)", parameters: parameters)
    }
}
