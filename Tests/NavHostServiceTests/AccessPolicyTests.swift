import NavHostService
import NavHostVarlink
import Synchronization
import Testing

@Suite("Access policy: who may control, and when the control group is looked up")
struct AccessPolicyTests {
    /// A stand-in for NSS that counts its look-ups: this unit's one seam to the system's group database.
    private final class GroupDatabase: Sendable {
        private let groups: Mutex<[String: UInt32]>
        private let lookUps = Mutex(0)

        init(_ groups: [String: UInt32]) {
            self.groups = Mutex(groups)
        }

        var count: Int { lookUps.withLock { $0 } }

        func add(_ name: String, _ id: UInt32) {
            groups.withLock { $0[name] = id }
        }

        func lookUp(_ name: String) -> UInt32? {
            lookUps.withLock { $0 += 1 }
            return groups.withLock { $0[name] }
        }
    }

    private static func peer(uid: UInt32, gid: UInt32) -> VarlinkPeerCredentials {
        VarlinkPeerCredentials(pid: 1, uid: uid, gid: gid)
    }

    @Test("Listed users and groups control without a look-up of the deferred group")
    func listedPeersNeedNoLookUp() {
        let database = GroupDatabase(["navhost": 900])
        let policy = AccessPolicy(
            controlUIDs: [0, 1000],
            controlGIDs: [4343],
            deferredControlGroup: "navhost",
            lookUpGroup: { database.lookUp($0) }
        )
        #expect(policy.mayControl(Self.peer(uid: 0, gid: 0)))
        #expect(policy.mayControl(Self.peer(uid: 1000, gid: 1000)))
        #expect(policy.mayControl(Self.peer(uid: 5000, gid: 4343)))
        #expect(!policy.mayControl(nil))
        #expect(database.count == 0)
    }

    @Test("The deferred group is looked up once, at the first peer it could admit, and its members control")
    func deferredGroupLookedUpOnce() {
        let database = GroupDatabase(["navhost": 900])
        let policy = AccessPolicy(
            controlUIDs: [0],
            controlGIDs: [],
            deferredControlGroup: "navhost",
            lookUpGroup: { database.lookUp($0) }
        )
        #expect(policy.mayControl(Self.peer(uid: 5000, gid: 900)))
        #expect(policy.mayControl(Self.peer(uid: 5001, gid: 900)))
        #expect(policy.resolvedControlGIDs == [900])
        #expect(database.count == 1)
    }

    @Test("A group missing at the first look stays missing for this policy; a new policy sees it")
    func missingGroupUntilReplaced() {
        let database = GroupDatabase([:])
        let lookUp: @Sendable (String) -> UInt32? = { database.lookUp($0) }
        let policy = AccessPolicy(
            controlUIDs: [0],
            controlGIDs: [],
            deferredControlGroup: "navhost",
            lookUpGroup: lookUp
        )
        #expect(!policy.mayControl(Self.peer(uid: 5000, gid: 900)))
        database.add("navhost", 900)
        #expect(!policy.mayControl(Self.peer(uid: 5000, gid: 900)))
        #expect(database.count == 1)
        let reloaded = AccessPolicy(
            controlUIDs: [0],
            controlGIDs: [],
            deferredControlGroup: "navhost",
            lookUpGroup: lookUp
        )
        #expect(reloaded.mayControl(Self.peer(uid: 5000, gid: 900)))
    }

    @Test(
        "An account's groups are looked up again, in the background, at the first call after they are 10 s old: one added to the group controls, one taken out stops"
    )
    func membershipFollowsTheAccount() {
        let members = Mutex<Set<UInt32>>([5000])
        let lookUps = Mutex(0)
        let start = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        let refreshes = Mutex<[@Sendable () -> Void]>([])
        let policy = AccessPolicy(
            controlUIDs: [0],
            controlGIDs: [],
            deferredControlGroup: "navhost",
            lookUpGroup: { _ in 900 },
            lookUpMembership: { uid, gid in
                lookUps.withLock { $0 += 1 }
                return members.withLock { $0.contains(uid) } ? [gid, 900] : [gid]
            },
            now: { start + elapsed.withLock { $0 } },
            refresh: { work in refreshes.withLock { $0.append(work) } }
        )
        let (leaving, joining) = (Self.peer(uid: 5000, gid: 5000), Self.peer(uid: 5001, gid: 5001))
        // The first look of each user is made at once.
        #expect(policy.mayControl(leaving))
        #expect(!policy.mayControl(joining))
        #expect(lookUps.withLock { $0 } == 2)
        members.withLock { $0 = [5001] }
        // Within the lifetime, what was looked up stands, and NSS is not asked again.
        elapsed.withLock { $0 = AccessPolicy.membershipLifetime - .milliseconds(1) }
        #expect(policy.mayControl(leaving))
        #expect(!policy.mayControl(joining))
        #expect(refreshes.withLock { $0.isEmpty })
        // Past it, a call starts one look-up in the background per user and is judged by what was known.
        elapsed.withLock { $0 = AccessPolicy.membershipLifetime }
        #expect(policy.mayControl(leaving))
        #expect(policy.mayControl(leaving))
        #expect(!policy.mayControl(joining))
        #expect(lookUps.withLock { $0 } == 2)
        let started = refreshes.withLock { work in
            defer { work = [] }
            return work
        }
        #expect(started.count == 2)
        for work in started { work() }
        #expect(lookUps.withLock { $0 } == 4)
        #expect(!policy.mayControl(leaving))
        #expect(policy.mayControl(joining))
    }

    @Test("NSS's answer for an account holds its primary group and the groups that list it; none for no account")
    func membershipFromNSS() {
        // root is in group root on every system; an ID no account has is only its primary group.
        #expect(AccessPolicy.membership(ofUser: 0, primaryGroup: 0).contains(0))
        #expect(AccessPolicy.membership(ofUser: 4_000_000_000, primaryGroup: 4_000_000_001) == [4_000_000_001])
    }

    @Test("Without a deferred group, only what is listed controls, and nothing is looked up")
    func noDeferredGroup() {
        let database = GroupDatabase(["navhost": 900])
        let policy = AccessPolicy(controlUIDs: [0], controlGIDs: [], lookUpGroup: { database.lookUp($0) })
        #expect(!policy.mayControl(Self.peer(uid: 5000, gid: 900)))
        #expect(policy.resolvedControlGIDs.isEmpty)
        #expect(database.count == 0)
    }
}
