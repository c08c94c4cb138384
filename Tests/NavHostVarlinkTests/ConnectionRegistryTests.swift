import Synchronization
import Testing

@testable import NavHostVarlink

/// The server's count of connections, and who may take the places kept for privileged peers.
@Suite("Admitting connections")
struct ConnectionRegistryTests {
    @Test("Whether a peer is privileged is asked only when no other place is left: readers cost no look-up")
    func privilegeAskedOnlyForTheReservedPlaces() {
        let asked = Atomic(0)
        let registry = ConnectionRegistry(maxConnections: 4, maxConnectionsPerUID: 10, reservedConnections: 2) {
            peer in
            asked.add(1, ordering: .relaxed)
            return peer?.uid == 0
        }
        let reader = VarlinkPeerCredentials(pid: 10, uid: 1000, gid: 1000)
        let root = VarlinkPeerCredentials(pid: 11, uid: 0, gid: 0)
        #expect(registry.admit(peer: reader) != nil)
        #expect(registry.admit(peer: root) != nil)
        #expect(asked.load(ordering: .relaxed) == 0, "places were left: no one was asked about")

        // The other two places are the reserved ones: a reader is asked about and refused, root takes them.
        #expect(registry.admit(peer: reader) == nil)
        #expect(registry.admit(peer: root) != nil)
        #expect(registry.admit(peer: root) != nil)
        #expect(registry.admit(peer: root) == nil, "all four places are taken")
        #expect(asked.load(ordering: .relaxed) == 4)
    }
}
