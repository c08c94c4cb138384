import Foundation
import IntegrationHarness
import NavHostCore
import NavHostPluginHost
import NavHostPluginTools
import Testing

/// The scaffold's names and files. That the scaffolded feature builds, passes its tests and loads is checked by
/// `make test-scaffold` (scripts/test-scaffold.sh), which needs a build of its own.
@Suite("The feature scaffold")
struct FeatureScaffoldTests {
    @Test(
        "Names: the entity and the route namespace follow from the feature's name",
        arguments: [
            ("Orders", "Order", "orders"), ("UserProfile", "UserProfileItem", "userProfile"),
            ("Inventory", "InventoryItem", "inventory"), ("HTTPLogs", "HTTPLog", "httpLogs"),
            ("Address", "AddressItem", "address"),
        ]
    )
    func names(name: String, entity: String, namespace: String) throws {
        let scaffold = try FeatureScaffold(name: name)
        #expect(scaffold.entity == entity)
        #expect(scaffold.namespace == namespace)
    }

    @Test("An entity named like a type the tests import is refused, and a feature whose singular is one gets …Item")
    func entityNamedLikeAnImportedType() throws {
        #expect(try FeatureScaffold(name: "Tags").entity == "TagItem")
        #expect(try FeatureScaffold(name: "Routers").entity == "RouterItem")
        #expect {
            try FeatureScaffold(name: "Labels", entity: "Tag")
        } throws: { error in
            "\(error)".contains("\"Tag\" is also a type of Swift Testing") && "\(error)".contains("--entity TagItem")
        }
    }

    @Test("The names refused as entities cover every top-level type of the modules the scaffold's tests import")
    func importedTypeNamesAreComplete() throws {
        var interfaces = ["NavHostKit", "NavHostJSON", "NavHostTesting"].map {
            "\(TestPaths.buildDirectory)/Modules/\($0).swiftinterface"
        }
        // Swift Testing's, from the toolchain that runs these tests.
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            let swift = URL(fileURLWithPath: "\(folder)/swift").resolvingSymlinksInPath()
            let testing = swift.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("lib/swift/linux/Testing.swiftmodule")
            if let found = try? FileManager.default.contentsOfDirectory(atPath: testing.path)
                .first(where: { $0.hasSuffix(".swiftinterface") })
            {
                interfaces.append("\(testing.path)/\(found)")
            }
            break
        }
        #expect(interfaces.count == 4, "Swift Testing's interface was not found beside the swift on the PATH")
        for interface in interfaces {
            let text = try String(contentsOfFile: interface, encoding: .utf8)
            // Top-level declarations start at the first column (attributes may come first on the line).
            let declared = text.split(separator: "\n").compactMap { line -> String? in
                guard !line.hasPrefix(" "),
                    let match = line.firstMatch(of: /public (?:final )?(?:struct|enum|class|protocol|actor) ([A-Z]\w*)/)
                else { return nil }
                return String(match.1)
            }
            #expect(!declared.isEmpty, "\(interface)")
            let missing = Set(declared).subtracting(FeatureScaffold.importedTypeNames.keys)
            #expect(missing.isEmpty, "\(interface) declares \(missing.sorted()), which an entity may not be named")
        }
    }

    @Test(
        "Prose names the items in words, not as an identifier",
        arguments: [
            ("Orders", "a list of orders", "an added order shows"),
            ("Shop", "a list of shop items", "an added shop item shows"),
            ("HTTPLogs", "a list of http logs", "an added http log shows"),
            ("Address", "a list of address items", "an added address item shows"),
            ("Glossary", "a list of glossary items", "an added glossary item shows"),
        ]
    )
    func proseNames(name: String, summary: String, testTitle: String) throws {
        let files = try FeatureScaffold(name: name).files
        let manifest = try #require(files.first { $0.path == "plugin.json" }?.contents)
        let tests = try #require(files.first { $0.path == "Tests/\(name)FeatureTests.swift" }?.contents)
        #expect(manifest.contains("\(name): \(summary), kept across restarts."))
        #expect(tests.contains("The list starts empty; \(testTitle) at once and is stored"))
    }

    @Test(
        "A name that cannot name Swift targets is refused",
        arguments: ["", "orders", "9Lives", "Or-ders", "Orders!"]
    )
    func invalidNames(name: String) {
        #expect(throws: PluginToolError.self) { try FeatureScaffold(name: name) }
    }

    @Test("It writes the seeds' layout with a plugin.json that reads, and never overwrites a plugin")
    func writesTheLayout() throws {
        let package = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: package) }
        let scaffold = try FeatureScaffold(name: "Orders")
        let notACheckout = try #require(throws: PluginToolError.self) { try scaffold.write(intoPackage: package) }
        #expect(notACheckout.code == .notACheckout && notACheckout.message.contains("--out-of-tree"))
        try FileManager.default.createDirectory(atPath: "\(package)/Plugins", withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: "\(package)/Package.swift", contents: Data())

        let folder = try scaffold.write(intoPackage: package)

        #expect(folder == "\(package)/Plugins/Orders")
        let expected = [
            "plugin.json", "Entry/OrdersFeatureEntry.swift", "Sources/OrdersFeature.swift",
            "Sources/OrdersCoordinator.swift",
            "Sources/Presentation/Router/OrdersRoute.swift",
            "Sources/Presentation/Features/Orders/ViewModel/OrdersViewModel.swift",
            "Sources/Domain/Entities/Order.swift", "Sources/Domain/Entities/OrdersError.swift",
            "Sources/Domain/Repositories/OrdersRepositoryProtocol.swift",
            "Sources/Domain/UseCases/GetOrdersUseCase.swift",
            "Sources/Domain/UseCases/AddOrderUseCase.swift", "Sources/Data/Models/OrderDTO.swift",
            "Sources/Data/DataSources/OrdersStoreDataSource.swift",
            "Sources/Data/Repositories/OrdersRepositoryImpl.swift",
            "Tests/OrdersFeatureTests.swift", "Tests/OrdersViewModelTests.swift", "Tests/Support/TestDoubles.swift",
        ]
        #expect(scaffold.files.map(\.path) == expected)
        for path in expected {
            #expect(FileManager.default.fileExists(atPath: "\(folder)/\(path)"), "\(path)")
        }
        let source = try PluginSource(folder: folder)
        #expect(source.name == "Orders" && source.version == SemanticVersion(0, 1, 0))
        let feature = try String(contentsOfFile: "\(folder)/Sources/OrdersFeature.swift", encoding: .utf8)
        #expect(feature.contains(#"route: "orders.list""#))

        let again = try #require(throws: PluginToolError.self) { try scaffold.write(intoPackage: package) }
        #expect(again.code == .alreadyExists)
    }

    @Test("An out-of-tree package goes into a new folder, an empty one or a fresh clone's, never over other files")
    func outOfTreeFolder() throws {
        let base = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let scaffold = try FeatureScaffold(name: "Orders")
        // A fresh clone of an empty repository: its .git stays as it was.
        let clone = "\(base)/clone"
        try FileManager.default.createDirectory(atPath: "\(clone)/.git", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: "\(clone)/.git/HEAD", contents: Data("ref: refs/heads/main\n".utf8))
        try scaffold.write(outOfTree: clone, sdkDirectory: "/usr/lib/navhost")
        #expect(FileManager.default.fileExists(atPath: "\(clone)/Package.swift"))
        #expect(try String(contentsOfFile: "\(clone)/.git/HEAD", encoding: .utf8) == "ref: refs/heads/main\n")
        // A new folder, and an empty one.
        try scaffold.write(outOfTree: "\(base)/new", sdkDirectory: "/usr/lib/navhost")
        try FileManager.default.createDirectory(atPath: "\(base)/empty", withIntermediateDirectories: false)
        try scaffold.write(outOfTree: "\(base)/empty", sdkDirectory: "/usr/lib/navhost")
        #expect(FileManager.default.fileExists(atPath: "\(base)/empty/Makefile"))
        // A clone that holds a README besides its .git: nothing is written, and the error names what is there.
        let held = "\(base)/held"
        try FileManager.default.createDirectory(atPath: "\(held)/.git", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: "\(held)/README.md", contents: Data("mine\n".utf8))
        let refused = try #require(throws: PluginToolError.self) {
            try scaffold.write(outOfTree: held, sdkDirectory: "/usr/lib/navhost")
        }
        #expect(refused.code == .alreadyExists && refused.message.contains("holds README.md;"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: held).sorted() == [".git", "README.md"])
        #expect(try String(contentsOfFile: "\(held)/README.md", encoding: .utf8) == "mine\n")
        // A package written already is refused the same way.
        let again = try #require(throws: PluginToolError.self) {
            try scaffold.write(outOfTree: clone, sdkDirectory: "/usr/lib/navhost")
        }
        #expect(again.code == .alreadyExists && again.message.contains("and "))
    }

    @Test("An out-of-tree package carries this repository's swift-format settings, word for word")
    func outOfTreeFormatSettingsMatchTheRepository() throws {
        let files = try FeatureScaffold(name: "Favorites").packageFiles(sdkDirectory: "/usr/lib/navhost")
        let written = try #require(files.first { $0.path == ".swift-format" }?.contents)
        let repository = try String(contentsOfFile: "\(TestPaths.packageRoot)/.swift-format", encoding: .utf8)
        #expect(written == repository)
    }
}
