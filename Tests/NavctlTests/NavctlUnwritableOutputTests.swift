import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// Where navctl's own output goes: standard output it cannot write, and the file `record -o` names.
@Suite(
    "navctl output it cannot write, and record -o's file",
    .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
)
struct NavctlUnwritableOutputTests {
    @Test("Standard output that cannot be written ends navctl with 1: a full disk says so, a closed pipe ends a watch")
    func unwritableOutput() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let socket = ["--socket", daemon.socketPath]
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            defer { try? full.close() }
            let stack = try await RunningNavctl(["stack"] + socket, standardOutput: full).waitForExit()
            #expect(stack.status == 1)
            #expect(stack.errors == "navctl: cannot write standard output: No space left on device\n")

            // A watch read through a pipe whose reader goes (`navctl watch | head -1`): it ends at its next update.
            let pipe = Pipe()
            let watch = try RunningNavctl(["watch", "--json"] + socket, standardOutput: pipe.fileHandleForWriting)
            try pipe.fileHandleForWriting.close()
            let first = pipe.fileHandleForReading.availableData
            #expect(String(decoding: first, as: UTF8.self).contains("\"snapshot\""))
            try pipe.fileHandleForReading.close()
            let navigate = try await Navctl.run(["navigate", "products.list"] + socket)
            #expect(navigate.status == 0, "\(navigate.errors)")
            let ended = try await watch.waitForExit(within: .seconds(20))
            #expect(ended.status == 1)
            #expect(ended.errors.isEmpty, "a reader gone is not an error to report: \(ended.errors)")
        }
    }

    @Test("record -o writes through a FIFO and /dev/stdout, replaces a link's file (not the link), keeps a file's mode")
    func recordIntoWhatIsThere() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let socket = ["--socket", daemon.socketPath]
            let directory = try TestPaths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }

            // A FIFO a script reads: written to, and still a FIFO after.
            let fifo = "\(directory)/fifo.navrec"
            #expect(mkfifo(fifo, 0o600) == 0)
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            #expect(reader >= 0)
            defer { close(reader) }
            let toFIFO = try await Navctl.run(["record", "-o", fifo] + socket)
            #expect(toFIFO.status == 0, "\(toFIFO.errors)")
            let received = FileHandle(fileDescriptor: reader, closeOnDealloc: false).availableData
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.contains("\"navhost-recording\""), "the recording came through")
            #expect(Self.kind(of: fifo) == S_IFIFO, "still a FIFO")

            // A symbolic link to a file of mode 0664 (which the umask would narrow in a new file): the file is
            // replaced and keeps its mode; the link stays one.
            let file = "\(directory)/real.navrec"
            let link = "\(directory)/link.navrec"
            #expect(FileManager.default.createFile(atPath: file, contents: Data("old".utf8)))
            #expect(chmod(file, 0o664) == 0)
            #expect(symlink(file, link) == 0)
            let throughLink = try await Navctl.run(["record", "-o", link] + socket)
            #expect(throughLink.status == 0, "\(throughLink.errors)")
            #expect(Self.kind(of: link, following: false) == S_IFLNK, "the link is still a link")
            let written = try String(contentsOfFile: file, encoding: .utf8)
            #expect(written.contains("\"navhost-recording\""), "the link's file holds the recording")
            var status = stat()
            #expect(stat(file, &status) == 0 && status.st_mode & 0o7777 == 0o664, "its mode kept")

            // A dangling link: the file it names is made, the link stays one.
            let dangling = "\(directory)/dangling.navrec"
            #expect(symlink("\(directory)/new.navrec", dangling) == 0)
            #expect(try await Navctl.run(["record", "-o", dangling] + socket).status == 0)
            #expect(Self.kind(of: dangling, following: false) == S_IFLNK)
            #expect(Self.kind(of: "\(directory)/new.navrec") == S_IFREG)

            // /dev/stdout, redirected to a file that holds a line already: written after it, the file not replaced.
            let log = "\(directory)/log"
            #expect(FileManager.default.createFile(atPath: log, contents: Data("head\n".utf8)))
            let handle = try #require(FileHandle(forWritingAtPath: log))
            defer { try? handle.close() }
            _ = try handle.seekToEnd()
            let toStandardOutput = try await RunningNavctl(
                ["record", "-o", "/dev/stdout"] + socket,
                standardOutput: handle
            ).waitForExit()
            #expect(toStandardOutput.status == 0, "\(toStandardOutput.errors)")
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            #expect(logged.hasPrefix("head\n{\"format\":\"navhost-recording\""), "\(logged)")
        }
    }

    /// The kind of file at `path` (`S_IFIFO`, `S_IFLNK`, …), `lstat`'s when not `following` a link.
    private static func kind(of path: String, following: Bool = true) -> mode_t {
        var status = stat()
        let found = following ? stat(path, &status) : lstat(path, &status)
        return found == 0 ? status.st_mode & S_IFMT : 0
    }
}
