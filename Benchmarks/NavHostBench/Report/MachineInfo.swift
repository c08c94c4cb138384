import Glibc

/// The machine the figures were taken on: CPUs, kernel, toolchain, and how busy it was.
struct MachineInfo {
    var cpuModel: String
    var onlineCPUs: Int
    var kernel: String
    var swiftVersion: String
    /// `lscpu`'s lines that describe the processor.
    var lscpu: [String]
    /// `/proc/loadavg` when the run started.
    var loadAtStart: String
    /// How an idle CPU waits for work: the cpuidle driver and governor and, under the `haltpoll` driver of a KVM
    /// guest, how long the guest polls before it halts the vCPU. On the development VM a lone round trip took half as
    /// long with `guest_halt_poll_ns` at 200000 as at 0, the floor's too: runs with different settings do not compare.
    var idlePolling: String

    /// Reads what it can; missing tools give empty fields, never an error.
    static func current() -> MachineInfo {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var model = "unknown"
        let cpuinfo = readFile("/proc/cpuinfo") ?? ""
        if let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            model = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        let wanted = [
            "Architecture", "CPU(s)", "Model name", "Thread(s) per core", "Core(s) per socket", "Socket(s)",
            "Hypervisor vendor", "Virtualization type", "L2 cache", "L3 cache",
        ]
        var lscpu: [String] = []
        let lscpuOutput = (try? Subprocess.run(["lscpu"]))?.1 ?? ""
        for line in lscpuOutput.split(separator: "\n") where wanted.contains(where: { line.hasPrefix("\($0):") }) {
            lscpu.append(line.split(separator: " ").joined(separator: " "))
        }
        let swiftOutput = (try? Subprocess.run(["swift", "--version"]))?.1 ?? ""
        let swift = swiftOutput.split(separator: "\n").first { $0.contains("Swift version") }
        return MachineInfo(
            cpuModel: model,
            onlineCPUs: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            kernel: "Linux \(release) \(machine)",
            swiftVersion: swift.map(String.init) ?? "unknown",
            lscpu: lscpu,
            loadAtStart: currentLoad(),
            idlePolling: currentIdlePolling()
        )
    }

    /// `cpuidle haltpoll (governor haltpoll), guest_halt_poll_ns 0`, or `cpuidle none` where the kernel has none.
    static func currentIdlePolling() -> String {
        let cpuidle = "/sys/devices/system/cpu/cpuidle"
        func field(_ path: String) -> String? {
            readFile(path)?.split(whereSeparator: \.isWhitespace).first.map(String.init)
        }
        guard let driver = field("\(cpuidle)/current_driver"), driver != "none" else { return "cpuidle none" }
        var description = "cpuidle \(driver)"
        if let governor = field("\(cpuidle)/current_governor_ro") ?? field("\(cpuidle)/current_governor") {
            description += " (governor \(governor))"
        }
        if let pollLimit = field("/sys/module/haltpoll/parameters/guest_halt_poll_ns") {
            description += ", guest_halt_poll_ns \(pollLimit)"
        }
        return description
    }

    /// `/proc/loadavg`'s first three fields.
    static func currentLoad() -> String {
        (readFile("/proc/loadavg") ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }

    var report: ReportValue {
        .object([
            ("cpuModel", .string(cpuModel)),
            ("onlineCPUs", .integer(onlineCPUs)),
            ("kernel", .string(kernel)),
            ("swift", .string(swiftVersion)),
            ("lscpu", .array(lscpu.map(ReportValue.string))),
            ("loadAverageAtStart", .string(loadAtStart)),
            ("idlePolling", .string(idlePolling)),
        ])
    }
}

/// The whole contents of a small text file, or `nil` when it cannot be read.
func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
