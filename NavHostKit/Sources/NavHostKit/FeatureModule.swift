internal import Synchronization

/// What a feature plugin gives the daemon: its name, its screens, and its composition root.
///
/// A plugin's shared library exports one C entry point that returns its `FeatureModule`:
///
/// ```swift
/// @_cdecl("navhost_feature_entry")
/// public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
///     FeatureExport.export(ProductsFeature())
/// }
///
/// public final class ProductsFeature: FeatureModule {
///     public let name = "Products"
///     public let screens = [
///         ScreenDescriptor(route: "products.list", viewModel: ProductsViewModel.self),
///         ScreenDescriptor(route: "products.detail", parameters: ["productID"], viewModel: ProductDetailViewModel.self),
///     ]
///     public init() {}
///     public func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
///         ProductsCoordinator(services: services)
///     }
/// }
/// ```
public protocol FeatureModule: AnyObject, Sendable {
    /// The feature's name, as in its manifest, like `Products`.
    var name: String { get }

    /// The routes the feature offers.
    var screens: [ScreenDescriptor] { get }

    /// Builds the feature's composition root, wiring repositories and use cases to the host's services.
    ///
    /// Called once, on the main actor, after the plugin is loaded. A throw quarantines the plugin.
    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator

    /// The version of NavHostKit the plugin was compiled against; `navhost-plugin-tool` writes it into the manifest.
    ///
    /// Do not implement it: the default is compiled into the plugin itself, so it tells the truth about the build.
    var sdkVersion: NavHostKitVersion { get }
}

extension FeatureModule {
    @_alwaysEmitIntoClient
    public var sdkVersion: NavHostKitVersion { NavHostKitVersion.compiled }
}

/// A feature's composition root: it builds the ViewModel for each of the feature's routes.
///
/// Most features adopt the typed ``Coordinator`` instead.
@MainActor
public protocol FeatureCoordinator: AnyObject {
    /// Builds the ViewModel for `request`, navigating through a router bound to `navigation` and `screen`.
    ///
    /// - Throws: ``RouteError`` when the request is not one of the feature's routes or its parameters do not fit.
    func makeViewModel(
        for request: RouteRequest,
        navigation: any NavigationHandler,
        screen: ScreenID
    ) throws -> any ViewModel
}

/// A feature's composition root over its typed routes: one `switch`, like the seeds' `Route.view()`.
///
/// ```swift
/// @MainActor
/// final class ProductsCoordinator: Coordinator {
///     func makeViewModel(for route: ProductsRoute, router: Router<ProductsRoute>) -> any ViewModel {
///         switch route {
///         case .list: ProductsViewModel(getProductsUseCase: getProductsUseCase, router: router)
///         case .detail(let productID): ProductDetailViewModel(productID: productID, ..., router: router)
///         }
///     }
/// }
/// ```
@MainActor
public protocol Coordinator: FeatureCoordinator {
    /// The feature's route enum.
    associatedtype RouteType: Route

    /// Builds the ViewModel for `route`.
    func makeViewModel(for route: RouteType, router: Router<RouteType>) -> any ViewModel
}

extension Coordinator {
    public func makeViewModel(
        for request: RouteRequest,
        navigation: any NavigationHandler,
        screen: ScreenID
    ) throws -> any ViewModel {
        let route = try request.decode(as: RouteType.self)
        return makeViewModel(for: route, router: Router(handler: navigation, screen: screen))
    }
}

/// Describes one route of a feature without loading it: what manifests and the `Routes` call show.
public struct ScreenDescriptor: Sendable, Hashable, Codable {
    /// The route's wire ID, like `products.detail`.
    public var route: String
    /// The names of the route's parameters.
    public var parameters: [String]
    /// The names of the intents its screen accepts.
    public var intents: [String]
    /// A line for people: what the screen shows.
    public var summary: String
    /// The arguments of each intent, by intent name (``ViewModelIntent/arguments``); empty when not known.
    ///
    /// For a descriptor that names its ViewModel they are learned the first time they are read (the `Routes` call),
    /// not when the plugin loads: learning them runs the feature's decoding of every intent case, which loading
    /// need not wait for.
    public var intentArguments: [String: [IntentArgument]] {
        get { arguments.value }
        set { arguments = LazyIntentArguments(newValue) }
    }

    private var arguments: LazyIntentArguments

    /// The names in ``intents`` that are not cases of the ViewModel's `Intent` enum: an author's slip, like
    /// `onTappedBak` listed for the case `onTappedBack`, which no `Send` could reach. Empty for a descriptor built
    /// from its parts. `navhost-plugin-tool` refuses to stage a plugin with any. Reading it runs the feature's
    /// decoding of each name.
    ///
    /// - Since: NavHostKit 2.2.0.
    public var unknownIntents: [String] { findUnknownIntents?() ?? [] }

    private var findUnknownIntents: (@Sendable () -> [String])?

    /// Describes a route whose screen is driven by a ViewModel of type `viewModel`; its intents and their arguments
    /// are read from `VM.Intent`.
    public init<VM: ViewModel>(
        route: String,
        parameters: [String] = [],
        viewModel: VM.Type,
        summary: String = ""
    ) {
        self.route = route
        self.parameters = parameters
        self.intents = VM.Intent.names
        self.summary = summary
        self.arguments = LazyIntentArguments(learning: { VM.Intent.arguments })
        self.findUnknownIntents = {
            VM.Intent.names.filter { IntentArgumentProbe.isNotCase(VM.Intent.self, name: $0) }
        }
    }

    /// Describes a route by its parts, without its intents' arguments.
    public init(route: String, parameters: [String] = [], intents: [String] = [], summary: String = "") {
        self.init(route: route, parameters: parameters, intents: intents, summary: summary, intentArguments: [:])
    }

    /// Describes a route by its parts.
    public init(
        route: String,
        parameters: [String] = [],
        intents: [String] = [],
        summary: String = "",
        intentArguments: [String: [IntentArgument]]
    ) {
        self.route = route
        self.parameters = parameters
        self.intents = intents
        self.summary = summary
        self.arguments = LazyIntentArguments(intentArguments)
    }

    public static func == (lhs: ScreenDescriptor, rhs: ScreenDescriptor) -> Bool {
        lhs.route == rhs.route && lhs.parameters == rhs.parameters && lhs.intents == rhs.intents
            && lhs.summary == rhs.summary && lhs.intentArguments == rhs.intentArguments
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(route)
        hasher.combine(parameters)
        hasher.combine(intents)
        hasher.combine(summary)
    }

    private enum CodingKeys: String, CodingKey { case route, parameters, intents, summary, intentArguments }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        route = try container.decode(String.self, forKey: .route)
        parameters = try container.decode([String].self, forKey: .parameters)
        intents = try container.decode([String].self, forKey: .intents)
        summary = try container.decode(String.self, forKey: .summary)
        // Absent from what an SDK before 2.2.0 wrote.
        arguments = LazyIntentArguments(
            try container.decodeIfPresent([String: [IntentArgument]].self, forKey: .intentArguments) ?? [:]
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(route, forKey: .route)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(intents, forKey: .intents)
        try container.encode(summary, forKey: .summary)
        try IntentArgument.encode(intentArguments, orderedAs: intents, into: &container, forKey: .intentArguments)
    }
}

/// A screen's intent arguments, known or learned once when first read (``ScreenDescriptor/intentArguments``).
private final class LazyIntentArguments: Sendable {
    private let learn: @Sendable () -> [String: [IntentArgument]]
    private let learned: Mutex<[String: [IntentArgument]]?>

    init(_ arguments: [String: [IntentArgument]]) {
        learn = { arguments }
        learned = Mutex(arguments)
    }

    init(learning learn: @escaping @Sendable () -> [String: [IntentArgument]]) {
        self.learn = learn
        learned = Mutex(nil)
    }

    var value: [String: [IntentArgument]] {
        if let known = learned.withLock({ $0 }) { return known }
        // Learned outside the lock: decoding runs the feature's code.
        let arguments = learn()
        learned.withLock { $0 = arguments }
        return arguments
    }
}

/// Hands a plugin's ``FeatureModule`` to the daemon across the C entry point.
public enum FeatureExport {
    /// The symbol every plugin exports.
    public static let entrySymbol = "navhost_feature_entry"

    /// Retains `module` and returns it as the opaque pointer the entry point returns.
    public static func export(_ module: any FeatureModule) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(module as AnyObject).toOpaque()
    }

    /// Takes back what an entry point returned; `nil` when it is not a ``FeatureModule`` of this SDK.
    public static func module(from pointer: UnsafeMutableRawPointer) -> (any FeatureModule)? {
        Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue() as? any FeatureModule
    }
}
