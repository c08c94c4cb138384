// A test fixture, not an example: screens whose work keeps a replay's settle waiting in each of the ways it knows
// (docs/recording.md, "Replay"), on real time as a network or a busy machine would (not on `services.clock`, which a
// replay runs virtually).
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(PaceFeature())
}

/// Six screens: `pace.tick` changes its state every 10 ms for as long as it is open; `pace.load` loads for 200 ms;
/// `pace.follow` follows something for as long as it is open and opens a `pace.load` above itself after 200 ms;
/// `pace.download` does the same with a `pace.tick`, as a download opens its progress; `pace.sync` empties the store's
/// `items`, adds three at 10, 20 and 30 ms, and follows on; `pace.count` shows how many `items` the store holds.
final class PaceFeature: FeatureModule {
    let name = "Pace"
    let screens = [
        ScreenDescriptor(
            route: "pace.tick",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: changes its state every 10 ms while open, as a clock or a progress bar."
        ),
        ScreenDescriptor(route: "pace.load", viewModel: PaceViewModel.self, summary: "Test fixture: loads for 200 ms."),
        ScreenDescriptor(
            route: "pace.follow",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: follows something while open, and opens pace.load after 200 ms."
        ),
        ScreenDescriptor(
            route: "pace.download",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: follows something while open, and opens pace.tick after 200 ms."
        ),
        ScreenDescriptor(
            route: "pace.sync",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: writes three items to the store 10 ms apart, then follows something while open."
        ),
        ScreenDescriptor(
            route: "pace.count",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: shows how many items the store holds."
        ),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        PaceCoordinator(store: services.store)
    }
}

enum PaceRoute: Route {
    static let namespace = "pace"
    case tick
    case load
    case follow
    case download
    case sync
    case count
}

@MainActor
final class PaceCoordinator: Coordinator {
    private let store: any KeyValueStore

    init(store: any KeyValueStore) {
        self.store = store
    }

    func makeViewModel(for route: PaceRoute, router: Router<PaceRoute>) -> any ViewModel {
        PaceViewModel(route: route, router: router, store: store)
    }
}

@MainActor
@Observable
final class PaceViewModel: ViewModel {
    /// How long `pace.load` loads, and `pace.follow` waits before it opens one: four times a replay's 50 ms of quiet.
    static let loadTime: Duration = .milliseconds(200)
    /// The store key `pace.sync` writes and `pace.count` counts.
    static let itemsKey = "items"

    private(set) var state = "idle"
    private let route: PaceRoute
    private let router: Router<PaceRoute>
    private let store: any KeyValueStore

    init(route: PaceRoute, router: Router<PaceRoute>, store: any KeyValueStore) {
        self.route = route
        self.router = router
        self.store = store
    }

    func onAppear() async {
        switch route {
        case .tick:
            var ticks = 0
            while !Task.isCancelled {
                state = "tick \(ticks)"
                ticks += 1
                try? await Task.sleep(for: .milliseconds(10))
            }
        case .load:
            state = "loading"
            try? await Task.sleep(for: Self.loadTime)
            state = "loaded"
        case .follow, .download:
            state = "following"
            try? await Task.sleep(for: Self.loadTime)
            guard !Task.isCancelled else { return }
            router.navigate(to: route == .follow ? .load : .tick)
            try? await Task.sleep(for: .seconds(3600))
        case .sync:
            await syncItems()
            try? await Task.sleep(for: .seconds(3600))
        case .count:
            let items = try? await store.value(forKey: Self.itemsKey)
            state = "\(items?.arrayValue?.count ?? 0) items"
        }
    }

    /// Empties the store's items, then adds one every 10 ms, three in all, saying how many it wrote.
    private func syncItems() async {
        state = "written 0"
        do {
            try await store.removeValue(forKey: Self.itemsKey)
            for item in 1...3 {
                try await Task.sleep(for: .milliseconds(10))
                _ = try await store.updateValue(forKey: Self.itemsKey) { items in
                    .array((items?.arrayValue ?? []) + [.int(Int64(item))])
                }
                state = "written \(item)"
            }
        } catch {
            state = "failed: \(error)"
        }
    }
}
