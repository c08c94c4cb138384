import Foundation
import IntegrationHarness
import Testing

/// docs/architecture.md's table of modules against the sources: every module of `Sources/` has a row, and each row
/// names exactly the modules of this repository and the external packages its files import. A new import, or a module
/// moved from one layer to another, fails here until the page says so too.
@Suite("docs/architecture.md's module table matches what each module imports")
struct ModuleImportsTests {
    private static let sources = URL(fileURLWithPath: TestPaths.packageRoot).appendingPathComponent("Sources")
    private static let sdkSources = URL(fileURLWithPath: TestPaths.packageRoot)
        .appendingPathComponent("NavHostKit/Sources")

    @Test("Each row lists exactly the repository's modules its sources import, and every module has a row")
    func importsMatchTheTable() throws {
        let rows = try Self.tableRows()
        let ours = try Self.repositoryModules()
        let documented = Set(rows.flatMap(\.modules))
        for module in ours.swift where !documented.contains(module) {
            Issue.record("Sources/\(module) has no row in docs/architecture.md's module table")
        }
        for row in rows {
            let folders = row.modules.compactMap(Self.folder(of:))
            guard folders.count == row.modules.count else { continue }  // the SDK's row: a package of its own
            // The SDK's two modules, NavHostKit and NavHostJSON, are one library: the table names it `NavHostKit`.
            let imported = try folders.reduce(into: Set<String>()) { $0.formUnion(try Self.imports(under: $1)) }
                .intersection(ours.all)
                .subtracting(row.modules)
                .map { $0 == "NavHostJSON" ? "NavHostKit" : $0 }
            let listed = Set(row.imports).intersection(ours.all)
            #expect(Set(imported) == listed, "\(row.modules): the sources import \(Set(imported).sorted())")
            let external = try folders.reduce(into: Set<String>()) { $0.formUnion(try Self.imports(under: $1)) }
                .subtracting(ours.all).subtracting(Self.toolchainModules)
            for module in external where Self.packages[module] == nil {
                Issue.record("\(row.modules) import \(module): add its package to ModuleImportsTests.packages")
            }
            let packages = Set(external.compactMap { Self.packages[$0] })
            #expect(packages == Set(row.packages), "\(row.modules): the sources import from \(packages.sorted())")
        }
    }

    /// The external packages the table names in italics, by the modules the sources import from them.
    private static let packages = [
        "Logging": "swift-log",
        "NIOCore": "swift-nio", "NIOPosix": "swift-nio", "NIOEmbedded": "swift-nio", "NIOHTTP1": "swift-nio",
        "ArgumentParser": "swift-argument-parser",
        "UnixSignals": "swift-service-lifecycle", "ServiceLifecycle": "swift-service-lifecycle",
        "Hummingbird": "hummingbird", "HummingbirdCore": "hummingbird",
        "HummingbirdWebSocket": "hummingbird-websocket",
        "HTTPTypes": "swift-http-types",
    ]

    /// The toolchain's own modules, which the table does not list.
    private static let toolchainModules: Set = [
        "Dispatch", "Foundation", "FoundationEssentials", "Glibc", "Observation", "Synchronization", "Testing",
    ]

    // MARK: Reading the page

    private struct Row {
        var modules: [String]
        var imports: [String]
        /// The external packages, in italics.
        var packages: [String]
    }

    private static func tableRows() throws -> [Row] {
        let page = try String(
            contentsOfFile: "\(TestPaths.packageRoot)/docs/architecture.md",
            encoding: .utf8
        )
        let lines = page.components(separatedBy: "\n")
        let header = try #require(
            lines.firstIndex(where: { $0.hasPrefix("| module | its job | imports |") }),
            "docs/architecture.md has no module table"
        )
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return Row(
                modules: codeSpans(in: cells[1]),
                imports: codeSpans(in: cells[3]),
                packages: cells[3].matches(of: /\*([\w-]+)\*/).map { String($0.output.1) }
            )
        }
    }

    /// The names in backticks, like `NavHostCore`.
    private static func codeSpans(in text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    // MARK: Reading the sources

    /// The modules this repository builds: its Swift modules, its C modules and the SDK's.
    private static func repositoryModules() throws -> (swift: Set<String>, all: Set<String>) {
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: sources.path))
        let cModules = names.filter { $0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true }
        let sdk = Set(try FileManager.default.contentsOfDirectory(atPath: sdkSources.path))
        let swift = names.subtracting(cModules)
        return (swift, names.union(sdk).union(["IntegrationHarness"]))
    }

    private static func folder(of module: String) -> URL? {
        if module == "IntegrationHarness" {
            return URL(fileURLWithPath: TestPaths.packageRoot).appendingPathComponent("Tests/IntegrationHarness")
        }
        let folder = sources.appendingPathComponent(module)
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }

    /// Every module a Swift file under `folder` imports.
    private static func imports(under folder: URL) throws -> Set<String> {
        let pattern = try Regex(
            #"^(?:@\w+ )*(?:public |package |internal |fileprivate |private )?import (?:(?:struct|class|enum|protocol|func|var|let|typealias) )?(\w+)"#
        ).anchorsMatchLineEndings()
        var found = Set<String>()
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder.appendingPathComponent(file).path, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { found.insert(String(name)) }
            }
        }
        return found
    }
}
