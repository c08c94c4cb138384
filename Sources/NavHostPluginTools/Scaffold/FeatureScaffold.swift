import FoundationEssentials
import NavHostCore
import NavHostPluginHost
import NavHostStorage

/// A new feature plugin that builds, passes its tests and loads as it is: `make new-feature NAME=Orders`.
///
/// It writes `Plugins/<Name>/` laid out as the seeds teach, around one working screen, `<namespace>.list`: a list
/// of `<Entity>` items kept in the feature's durable store, with an intent that adds one.
///
/// ```
/// Plugins/Orders/
/// ├── plugin.json
/// ├── Entry/OrdersFeatureEntry.swift
/// ├── Sources/
/// │   ├── OrdersFeature.swift, OrdersCoordinator.swift
/// │   ├── Presentation/Features/Orders/ViewModel/OrdersViewModel.swift, Presentation/Router/OrdersRoute.swift
/// │   ├── Domain/{Entities,UseCases,Repositories}/…
/// │   └── Data/{Repositories,DataSources,Models}/…
/// └── Tests/OrdersFeatureTests.swift, OrdersViewModelTests.swift, Support/TestDoubles.swift
/// ```
///
/// `Package.swift` finds every `Plugins/*/plugin.json`, so the new plugin needs no edit there.
public struct FeatureScaffold: Sendable, Hashable {
    // MARK: Public Properties

    /// The feature's name, like `Orders`: it names the targets, the types and the library.
    public let name: String
    /// The name of one item the feature lists, like `Order`.
    public let entity: String
    /// The first part of the feature's route IDs, like `orders`.
    public let namespace: String

    // MARK: Initialization

    /// Prepares the scaffold of feature `name`.
    ///
    /// - Parameters:
    ///   - name: An upper-camel-case name: a capital letter, then letters and digits, like `Orders`.
    ///   - entity: The name of one item; by default `name` without a final `s` (`Orders` → `Order`), or
    ///     `<name>Item` when that does not work.
    ///   - namespace: The route IDs' first part; by default `name` in lower camel case (`UserProfile` →
    ///     `userProfile`).
    /// - Throws: ``PluginToolError`` with code `invalidName`.
    public init(name: String, entity: String? = nil, namespace: String? = nil) throws(PluginToolError) {
        guard Self.isTypeName(name) else {
            throw PluginToolError(
                .invalidName,
                "\"\(name)\" is not a feature name: a capital letter, then letters and digits"
            )
        }
        let entity = entity ?? Self.singular(of: name)
        guard Self.isTypeName(entity), entity != name else {
            throw PluginToolError(.invalidName, "\"\(entity)\" cannot name the items: use another entity name")
        }
        if let module = Self.importedTypeNames[entity] {
            throw PluginToolError(
                .invalidName,
                "\"\(entity)\" is also a type of \(module), which the plugin's files import: its tests would not "
                    + "compile (\"'\(entity)' is ambiguous\"); name the items otherwise, like --entity \(entity)Item"
            )
        }
        let namespace = namespace ?? Self.lowerCamel(name)
        guard ManifestRules.isIdentifier(namespace) else {
            throw PluginToolError(.invalidName, "\"\(namespace)\" cannot start route IDs: use letters and digits")
        }
        self.name = name
        self.entity = entity
        self.namespace = namespace
    }

    // MARK: Public Functions

    /// Every file of the plugin: its path inside `Plugins/<Name>/`, and its text.
    public var files: [(path: String, contents: String)] {
        [
            ("plugin.json", pluginJSON),
            ("Entry/\(name)FeatureEntry.swift", entryFile),
            ("Sources/\(name)Feature.swift", featureFile),
            ("Sources/\(name)Coordinator.swift", coordinatorFile),
            ("Sources/Presentation/Router/\(name)Route.swift", routeFile),
            ("Sources/Presentation/Features/\(name)/ViewModel/\(name)ViewModel.swift", viewModelFile),
            ("Sources/Domain/Entities/\(entity).swift", entityFile),
            ("Sources/Domain/Entities/\(name)Error.swift", errorFile),
            ("Sources/Domain/Repositories/\(name)RepositoryProtocol.swift", repositoryProtocolFile),
            ("Sources/Domain/UseCases/Get\(name)UseCase.swift", getUseCaseFile),
            ("Sources/Domain/UseCases/Add\(entity)UseCase.swift", addUseCaseFile),
            ("Sources/Data/Models/\(entity)DTO.swift", dtoFile),
            ("Sources/Data/DataSources/\(name)StoreDataSource.swift", dataSourceFile),
            ("Sources/Data/Repositories/\(name)RepositoryImpl.swift", repositoryFile),
            ("Tests/\(name)FeatureTests.swift", featureTestsFile),
            ("Tests/\(name)ViewModelTests.swift", viewModelTestsFile),
            ("Tests/Support/TestDoubles.swift", testDoublesFile),
        ]
    }

    /// Writes the plugin into `<packageDirectory>/Plugins/<Name>/`.
    ///
    /// - Returns: The plugin's folder.
    /// - Throws: ``PluginToolError`` with code `notACheckout` when `packageDirectory` has no `Package.swift` and
    ///   `Plugins/` (a newcomer who meant a package of their own), `alreadyExists` when the folder exists,
    ///   `fileSystem` when a write fails.
    @discardableResult
    public func write(intoPackage packageDirectory: String) throws(PluginToolError) -> String {
        guard FileIO.kind(of: "\(packageDirectory)/Package.swift") == .regularFile,
            FileIO.kind(of: "\(packageDirectory)/Plugins") == .directory
        else {
            throw PluginToolError(
                .notACheckout,
                "\(packageDirectory) is not a NavHost checkout (no Package.swift and Plugins/ there); for a package of "
                    + "your own: navhost-plugin-tool new \(name) --out-of-tree DIR"
            )
        }
        let folder = "\(packageDirectory)/Plugins/\(name)"
        guard FileIO.kind(of: folder) == nil else {
            throw PluginToolError(.alreadyExists, "\(folder) already exists; pick another name or remove it")
        }
        try write(files, into: folder)
        return folder
    }
}

// MARK: - Names used by the templates

extension FeatureScaffold {
    /// `orders` for `Orders`: the feature name as a variable.
    var lowerName: String { Self.lowerCamel(name) }
    /// `order` for `Order`.
    var lowerEntity: String { Self.lowerCamel(entity) }
    /// `order` for `Order`, `shop item` for `ShopItem`: the entity's name in prose.
    var entityInProse: String { Self.words(of: entity).joined(separator: " ") }
    /// `orders` for `Order`, `shop items` for `ShopItem`: more than one, in prose.
    var entitiesInProse: String {
        let one = entityInProse
        if one.hasSuffix("s") || one.hasSuffix("x") || one.hasSuffix("ch") || one.hasSuffix("sh") { return one + "es" }
        if one.hasSuffix("y"), let beforeY = one.dropLast().last, !"aeiou".contains(beforeY) {
            return one.dropLast() + "ies"
        }
        return one + "s"
    }
    /// `order` for `Order`, `shop-item` for `ShopItem`: what the scaffold's item IDs start with (`order-1`), so that
    /// navctl's `key=value` reads an ID as a string, not a number.
    var idPrefix: String { Self.words(of: entity).joined(separator: "-") }
    /// `an` or `a`, for `entityInProse`.
    var article: String { "aeiou".contains(entityInProse.first ?? "x") ? "an" : "a" }
}

// MARK: - Private Functions

extension FeatureScaffold {
    fileprivate static func isTypeName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
        return ManifestRules.isFeatureName(text)
    }

    fileprivate static func singular(of name: String) -> String {
        if name.hasSuffix("s"), !name.hasSuffix("ss"), name.count > 1 {
            let singular = String(name.dropLast())
            // `Tags` → `TagItem`: `Tag` is Swift Testing's, which the tests import.
            return importedTypeNames[singular] == nil ? singular : "\(singular)Item"
        }
        return "\(name)Item"
    }

    /// The top-level types of the modules the scaffold's files import, by name, with the module: an entity of one of
    /// these names is ambiguous where both are imported (the tests import the feature, Swift Testing, NavHostKit and
    /// NavHostTesting).
    package static let importedTypeNames: [String: String] = {
        let modules: [(String, [String])] = [
            (
                "Swift Testing",
                [
                    "Attachable", "AttachableAsImage", "AttachableImageFormat", "AttachableWrapper", "Attachment",
                    "Bug", "Comment", "ConditionTrait", "Confirmation", "CustomTestArgumentEncodable",
                    "CustomTestStringConvertible", "ExitStatus", "ExitTest", "Expectation", "ExpectationFailedError",
                    "Issue", "IssueHandlingTrait", "KnownIssueMatcher", "ParallelizationTrait", "SourceLocation",
                    "SuiteTrait", "Tag", "Test", "TestScoping", "TestTrait", "TimeLimitTrait", "Trait",
                ]
            ),
            (
                "NavHostKit",
                [
                    "Coordinator", "FeatureCoordinator", "FeatureExport", "FeatureLogEntry", "FeatureLogHandler",
                    "FeatureLogger", "FeatureModule", "HostServices", "IntentArgument", "IntentError", "IntentMessage",
                    "JSONError", "JSONIncrementalParser", "JSONObject", "JSONParser", "JSONValue", "JSONValueDecoder",
                    "JSONValueEncoder", "KeyValueStore", "LoadCompletion", "LoadingState", "NavHostKitVersion",
                    "NavigationCommand", "NavigationHandler", "NoIntent", "NoState", "OptionalFeatures",
                    "PluginResources", "RandomSource", "RandomSourceGenerator", "ResourceError", "ResourceFolder",
                    "RestorableViewModel", "Route", "RouteError", "RouteRequest", "Router", "SDKImageProbe",
                    "ScreenDescriptor", "ScreenID", "SystemRandomSource", "ViewModel", "ViewModelIntent",
                ]
            ),
            (
                "NavHostTesting",
                [
                    "FeatureTestHost", "InMemoryKeyValueStore", "ManualClock", "RecordingNavigationHandler",
                    "ScriptedAnswers", "ScriptedUseCase", "SeededRandomSource", "SettleTimeout", "Suspension",
                    "TestError", "TestScreen",
                ]
            ),
            ("Synchronization", ["Atomic", "AtomicLazyReference", "Mutex", "WordPair"]),
        ]
        var names: [String: String] = [:]
        for (module, types) in modules {
            for type in types { names[type] = module }
        }
        return names
    }()

    /// The words of a type name, in lower case: `ShopItem` → `shop`, `item`; `HTTPRequest` → `http`, `request`.
    fileprivate static func words(of name: String) -> [String] {
        let characters = Array(name)
        var words: [String] = []
        var word = ""
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            // A capital starts a word after a lower-case letter or a digit, and ends a run of capitals when a
            // lower-case letter follows it (`HTTPRequest`: the `R`).
            let startsWord =
                character.isUppercase && !word.isEmpty
                && (word.last?.isUppercase == false || next?.isLowercase == true)
            if startsWord {
                words.append(word.lowercased())
                word = ""
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word.lowercased()) }
        return words
    }

    /// The name with its leading capitals lowered: `Orders` → `orders`, `UserProfile` → `userProfile`,
    /// `HTTPLog` → `httpLog`.
    fileprivate static func lowerCamel(_ name: String) -> String {
        let characters = Array(name)
        var capitals = characters.prefix { $0.isUppercase }.count
        if capitals > 1, capitals < characters.count { capitals -= 1 }
        return String(characters.prefix(capitals)).lowercased() + String(characters.dropFirst(capitals))
    }
}
