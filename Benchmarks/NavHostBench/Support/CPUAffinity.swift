import CNavHostBench
import Glibc

/// The benchmark's CPU affinity. Children inherit it, so pinning the benchmark to one CPU before starting the floor or
/// the daemon runs client and server on that one CPU — the floor README's "one core" case.
///
/// The benchmark never starts a thread of its own, so setting the calling thread's mask sets the process's.
enum CPUAffinity {
    /// A CPU mask as the kernel takes it: one bit per CPU, 1,024 CPUs.
    struct Mask {
        fileprivate var words = [UInt64](repeating: 0, count: 16)
    }

    /// The CPUs this thread may run on now.
    static func current() throws -> Mask {
        var mask = Mask()
        let size = mask.words.withUnsafeMutableBytes { navhost_bench_get_affinity($0.baseAddress, UInt($0.count)) }
        guard size > 0 else { throw BenchError.system("sched_getaffinity") }
        return mask
    }

    /// Restricts this thread (and every child started from now on) to `cpu`.
    static func pin(to cpu: Int) throws {
        var mask = Mask()
        mask.words[cpu / 64] |= 1 << UInt64(cpu % 64)
        try apply(mask)
    }

    /// Sets the mask to `mask`.
    static func apply(_ mask: Mask) throws {
        let status = mask.words.withUnsafeBytes { navhost_bench_set_affinity($0.baseAddress, UInt($0.count)) }
        guard status == 0 else { throw BenchError.system("sched_setaffinity") }
    }
}
