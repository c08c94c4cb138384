import Dispatch
import Glibc
import Logging
public import NavHostVarlink
import Synchronization

/// Who may change things: navigate, send intents, manage plugins. Everyone who can reach the socket may read.
///
/// A peer may control when its user ID is listed, when its primary group (from `SO_PEERCRED`) is listed, or when
/// its account belongs to a listed group. Account membership is looked up through NSS (`getgrouplist`, the
/// groups `/etc/group` or the directory service give the user) the first time the user asks to control, and again,
/// off the daemon's thread, at the first call after the last look is ``membershipLifetime`` old: an account added to
/// a group (`usermod -aG navhost NAME`) or taken out of it (`gpasswd -d NAME navhost`) controls, or stops
/// controlling, about that long after, on connections already open too. It is the account's membership, not the
/// supplementary groups of the connecting process: logging in again changes nothing. A connection whose credentials
/// could not be read may only read.
///
/// The standard control group (`navhost`) is named, not looked up, until a peer that is neither a control user
/// nor in a listed group first asks to control: then NSS resolves it once, for the life of the policy. A daemon
/// whose clients are root or its own user never consults NSS (where `/etc/group` lacks the group, that would load
/// `libnss_systemd` into it), and a group created after the daemon started counts if it exists by that first look.
public struct AccessPolicy: Sendable {
    /// User IDs that may control.
    public var controlUIDs: Set<UInt32>
    /// Group IDs whose members may control.
    public var controlGIDs: Set<UInt32>
    /// The group whose members may also control, by name, looked up when first needed; `nil` for none.
    public var deferredControlGroup: String? { deferredGroupID?.name }
    private let deferredGroupID: DeferredGroupLookup?
    private let membership: GroupMembershipCache
    /// The budget of the refusals' log lines, shared by every copy of the policy, and handed on to the policy that
    /// replaces it (``AccessControl/replace(with:)``), so that a reload does not open a new window for a flood.
    fileprivate(set) var refusalLog = LogBudget()

    /// How long an account's groups, once looked up, are taken as they were: a look-up per user and control call
    /// would ask NSS (a file read, or a directory server) on every call, on the thread that serves every client.
    public static let membershipLifetime: Duration = .seconds(10)

    /// A policy of `controlUIDs`, `controlGIDs` and the members of `deferredControlGroup`, which
    /// `lookUpGroup` resolves the first time it matters (`getgrnam` unless a test says otherwise).
    ///
    /// - Parameters:
    ///   - lookUpMembership: An account's groups, from its user ID and its primary group's ID (`getgrouplist`).
    ///   - now: The time, against which a membership looked up ``membershipLifetime`` ago is looked up again.
    ///   - refresh: Runs a look-up again away from the caller (a thread of the system's pool by default): the calls
    ///     meanwhile are judged by the groups known.
    public init(
        controlUIDs: Set<UInt32>,
        controlGIDs: Set<UInt32>,
        deferredControlGroup: String? = nil,
        lookUpGroup: @escaping @Sendable (String) -> UInt32? = AccessPolicy.groupID(named:),
        lookUpMembership: @escaping @Sendable (UInt32, UInt32) -> Set<UInt32> = AccessPolicy.membership,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        refresh: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = AccessPolicy.inTheBackground
    ) {
        self.controlUIDs = controlUIDs
        self.controlGIDs = controlGIDs
        self.deferredGroupID = deferredControlGroup.map { DeferredGroupLookup(name: $0, lookUp: lookUpGroup) }
        self.membership = GroupMembershipCache(lookUp: lookUpMembership, now: now, refresh: refresh)
    }

    /// Runs `work` on a thread of the system's pool.
    public static func inTheBackground(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .utility).async(execute: work)
    }

    /// Root, the daemon's own user, and the members of the group `controlGroup` once it exists.
    public static func standard(controlGroup: String = "navhost") -> AccessPolicy {
        AccessPolicy(controlUIDs: [0, getuid()], controlGIDs: [], deferredControlGroup: controlGroup)
    }

    /// The group `name`'s ID from NSS (`getgrnam`), or `nil` when there is no such group.
    public static func groupID(named name: String) -> UInt32? {
        getgrnam(name).map { $0.pointee.gr_gid }
    }

    /// The groups of the account with user ID `uid` from NSS (`getpwuid_r`, `getgrouplist`), its primary group `gid`
    /// among them; only `gid` when there is no such account.
    public static func membership(ofUser uid: UInt32, primaryGroup gid: UInt32) -> Set<UInt32> {
        enum Answer {
            case groups(Set<UInt32>)
            case noAccount
            case bufferTooSmall
        }
        var account = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var size = 1024
        while true {
            // The account's strings live in `buffer`: read them before it goes.
            let answer = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer -> Answer in
                let status = getpwuid_r(uid, &account, buffer.baseAddress!, size, &found)
                if status == ERANGE { return .bufferTooSmall }
                guard status == 0, found != nil, let name = account.pw_name else { return .noAccount }
                var count: Int32 = 64
                var groups = [gid_t](repeating: 0, count: Int(count))
                if getgrouplist(name, gid, &groups, &count) < 0 {
                    groups = [gid_t](repeating: 0, count: Int(count))
                    _ = getgrouplist(name, gid, &groups, &count)
                }
                return .groups(Set(groups.prefix(Int(max(count, 0)))))
            }
            switch answer {
            case .groups(let groups): return groups
            case .noAccount: return [gid]
            case .bufferTooSmall: size *= 2
            }
        }
    }

    /// Every group whose members may control: the listed ones and the deferred group, which this looks up if no
    /// call has yet.
    public var resolvedControlGIDs: Set<UInt32> {
        guard let id = deferredGroupID?.id else { return controlGIDs }
        return controlGIDs.union([id])
    }

    /// Whether `peer` may control.
    public func mayControl(_ peer: VarlinkPeerCredentials?) -> Bool {
        guard let peer else { return false }
        if controlUIDs.contains(peer.uid) || controlGIDs.contains(peer.gid) { return true }
        let groups = resolvedControlGIDs
        if groups.contains(peer.gid) { return true }
        guard !groups.isEmpty else { return false }
        return !membership.groups(ofUser: peer.uid, primaryGroup: peer.gid).isDisjoint(with: groups)
    }

    /// Throws `org.varlink.service.PermissionDenied` unless the caller may control.
    ///
    /// A refusal is logged at `info` with the client's process and user ID (`navhost.client.pid`,
    /// `navhost.client.uid`), so an operator can tell which program tried: at most 10 lines every 10 seconds for each
    /// user (``LogBudget``), since any user who may connect can repeat it without end.
    public func requireControl(_ request: VarlinkRequest) throws(VarlinkError) {
        guard mayControl(request.peer) else {
            var metadata: Logger.Metadata = [:]
            if let peer = request.peer {
                metadata["navhost.client.pid"] = "\(peer.pid)"
                metadata["navhost.client.uid"] = "\(peer.uid)"
            }
            refusalLog.log(
                .info,
                "Refused a control call: the client may only read",
                metadata: metadata,
                kind: request.peer.map { "\($0.uid)" } ?? "",
                to: request.logger
            )
            throw VarlinkError.permissionDenied()
        }
    }
}

/// A control group named in the policy, looked up through NSS the first time it is needed and then kept.
private final class DeferredGroupLookup: Sendable {
    let name: String
    private let lookUp: @Sendable (String) -> UInt32?
    private let result = Mutex<UInt32??>(nil)

    init(name: String, lookUp: @escaping @Sendable (String) -> UInt32?) {
        self.name = name
        self.lookUp = lookUp
    }

    /// The group's ID, or `nil` when it did not exist at the first look.
    var id: UInt32? {
        if let known = result.withLock({ $0 }) { return known }
        let found = lookUp(name)
        result.withLock { $0 = .some(found) }
        return found
    }
}

/// Each user's groups: looked up at the user's first look, on the caller's thread, then again in the background at
/// the first look after they are ``AccessPolicy/membershipLifetime`` old, the looks meanwhile answered with the groups
/// known. The daemon's one thread serves every client: a directory server slow to answer holds it at a user's first
/// control call only.
private final class GroupMembershipCache: Sendable {
    private struct Entry {
        var groups: Set<UInt32>
        var lookedUpAt: ContinuousClock.Instant
        /// Whether a look-up of the user's groups runs in the background: one at a time.
        var refreshing = false
    }

    private let cache = Mutex<[UInt32: Entry]>([:])
    private let lookUp: @Sendable (_ uid: UInt32, _ gid: UInt32) -> Set<UInt32>
    private let now: @Sendable () -> ContinuousClock.Instant
    private let refresh: @Sendable (@escaping @Sendable () -> Void) -> Void

    init(
        lookUp: @escaping @Sendable (_ uid: UInt32, _ gid: UInt32) -> Set<UInt32>,
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        refresh: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.lookUp = lookUp
        self.now = now
        self.refresh = refresh
    }

    func groups(ofUser uid: UInt32, primaryGroup gid: UInt32) -> Set<UInt32> {
        let time = now()
        let (known, refreshes) = cache.withLock { cache -> (Set<UInt32>?, Bool) in
            guard let entry = cache[uid] else { return (nil, false) }
            guard time - entry.lookedUpAt >= AccessPolicy.membershipLifetime, !entry.refreshing else {
                return (entry.groups, false)
            }
            cache[uid]?.refreshing = true
            return (entry.groups, true)
        }
        if refreshes {
            refresh { [self] in
                let started = now()
                let groups = lookUp(uid, gid)
                cache.withLock { $0[uid] = Entry(groups: groups, lookedUpAt: started) }
            }
        }
        if let known { return known }
        let groups = lookUp(uid, gid)
        cache.withLock { cache in
            // A look-up of another call may have landed meanwhile: the one started later stands.
            if let landed = cache[uid], landed.lookedUpAt > time { return }
            cache[uid] = Entry(groups: groups, lookedUpAt: time)
        }
        return groups
    }
}

/// The ``AccessPolicy`` in force, which a configuration reload may replace while clients stay connected: the
/// interfaces ask it on every call, so a new list of control users applies to the next call.
public final class AccessControl: Sendable {
    private let policy: Mutex<AccessPolicy>

    /// Starts with `policy`.
    public init(_ policy: AccessPolicy) {
        self.policy = Mutex(policy)
    }

    /// The policy in force.
    public var current: AccessPolicy { policy.withLock { $0 } }

    /// Puts `policy` in force for every call from now on. The budget of the refusals' log lines goes on.
    public func replace(with policy: AccessPolicy) {
        self.policy.withLock { current in
            var policy = policy
            policy.refusalLog = current.refusalLog
            current = policy
        }
    }

    /// Whether `peer` may control under the policy in force.
    public func mayControl(_ peer: VarlinkPeerCredentials?) -> Bool {
        isListed(peer) || current.mayControl(peer)
    }

    /// Throws `org.varlink.service.PermissionDenied` unless the caller may control under the policy in force.
    public func requireControl(_ request: VarlinkRequest) throws(VarlinkError) {
        if isListed(request.peer) { return }
        try current.requireControl(request)
    }

    /// Whether the policy in force lists `peer`'s user or primary group: the first thing ``AccessPolicy/mayControl(_:)``
    /// asks, and the answer for almost every call, read under the lock without a copy of the policy (its sets and
    /// references, retained and released on every call). Anything else goes to the policy's own checks.
    private func isListed(_ peer: VarlinkPeerCredentials?) -> Bool {
        guard let peer else { return false }
        return policy.withLock { $0.controlUIDs.contains(peer.uid) || $0.controlGIDs.contains(peer.gid) }
    }
}
