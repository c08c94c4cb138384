// A test fixture, not an example: screens whose work keeps a replay's settle waiting in each of the ways it knows
// (docs/recording.md, "Replay"), on real time as a network or a busy machine would (not on `services.clock`, which a
// replay runs virtually).
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(PaceFeature())
}

/// Nine screens: `pace.tick` changes its state every 10 ms for as long as it is open (with `steps`, it writes that
/// many items 30 ms apart instead, then follows on, as the same clock screen showing a countdown); `pace.load` loads
/// for 200 ms; `pace.follow` follows something for as long as it is open and opens a `pace.load` above itself after
/// 200 ms; `pace.download` does the same with a `pace.tick`, as a download opens its progress; `pace.sync` empties the
/// feature's items, adds three at 10, 20 and 30 ms, and follows on; `pace.stall` holds the main actor (the whole
/// daemon) 60 ms at a time, 1 ms apart, for 3 s, as synchronous work between awaits would, then opens a `pace.load` and
/// follows on; `pace.pulse` changes its state every 70 ms for as long as it is open; `pace.count` shows how many items
/// the feature holds; `pace.note` sets its restorable note 200 ms after it opens, then is idle.
final class PaceFeature: FeatureModule {
    let name = "Pace"
    let screens = [
        ScreenDescriptor(
            route: "pace.tick",
            parameters: ["steps"],
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
            summary: "Test fixture: writes three items 10 ms apart, then follows something while open."
        ),
        ScreenDescriptor(
            route: "pace.stall",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: holds the main actor 60 ms at a time for 3 s, then opens pace.load and follows on."
        ),
        ScreenDescriptor(
            route: "pace.pulse",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: changes its state every 70 ms while open, as a slow progress bar."
        ),
        ScreenDescriptor(
            route: "pace.count",
            viewModel: PaceViewModel.self,
            summary: "Test fixture: shows how many items pace.sync wrote."
        ),
        ScreenDescriptor(
            route: "pace.note",
            viewModel: PaceNoteViewModel.self,
            summary: "Test fixture: sets its restorable note 200 ms after it opens, unless it was brought back."
        ),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        PaceCoordinator()
    }
}

/// The items `pace.sync` writes and `pace.count` counts, kept in memory by the feature for every session: as a
/// repository's cache would be, and unlike the durable store (`services.store`), whose writes wait for the disk,
/// which may hold one back for longer than a replay's 50 ms of quiet.
@MainActor
final class PaceItems {
    var items: [Int] = []
}

enum PaceRoute: Route {
    static let namespace = "pace"
    /// With `steps`, writes that many items 30 ms apart, then follows on; without, ticks every 10 ms.
    case tick(steps: Int?)
    case load
    case follow
    case download
    case sync
    case stall
    case pulse
    case count
    case note
}

@MainActor
final class PaceCoordinator: Coordinator {
    private let items = PaceItems()

    func makeViewModel(for route: PaceRoute, router: Router<PaceRoute>) -> any ViewModel {
        route == .note ? PaceNoteViewModel() : PaceViewModel(route: route, router: router, items: items)
    }
}

@MainActor
@Observable
final class PaceViewModel: ViewModel {
    /// How long `pace.load` loads, and `pace.follow` waits before it opens one: four times a replay's 50 ms of quiet.
    static let loadTime: Duration = .milliseconds(200)
    /// How long `pace.stall` holds the main actor before it opens a `pace.load`: long enough for a settle to see its
    /// 50 ms without a change, 10 polls, one after each 60 ms held (about 0.6 s), with a margin for a loaded machine,
    /// and short of a settle's 5 s.
    static let stallTime: Duration = .seconds(3)

    private(set) var state = "idle"
    private let route: PaceRoute
    private let router: Router<PaceRoute>
    private let items: PaceItems

    init(route: PaceRoute, router: Router<PaceRoute>, items: PaceItems) {
        self.route = route
        self.router = router
        self.items = items
    }

    func onAppear() async {
        switch route {
        case .tick(let steps?):
            await writeItems(steps, apart: .milliseconds(30))
            try? await Task.sleep(for: .seconds(3600))
        case .tick(nil):
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
            router.navigate(to: route == .follow ? .load : .tick(steps: nil))
            try? await Task.sleep(for: .seconds(3600))
        case .sync:
            await writeItems(3, apart: .milliseconds(10))
            try? await Task.sleep(for: .seconds(3600))
        case .stall:
            state = "working"
            await holdTheMainActor(for: Self.stallTime)
            guard !Task.isCancelled else { return }
            router.navigate(to: .load)
            try? await Task.sleep(for: .seconds(3600))
        case .pulse:
            var pulses = 0
            while !Task.isCancelled {
                state = "pulse \(pulses)"
                pulses += 1
                try? await Task.sleep(for: .milliseconds(70))
            }
        case .count:
            state = "\(items.items.count) items"
        case .note:
            return  // Never here: pace.note's ViewModel is a PaceNoteViewModel.
        }
    }

    /// Holds the main actor 60 ms at a time, with a 1 ms sleep between, for `duration`.
    private func holdTheMainActor(for duration: Duration) async {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: duration)
        while clock.now < end, !Task.isCancelled {
            let stretch = clock.now.advanced(by: .milliseconds(60))
            while clock.now < stretch {}
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Empties the feature's items, then adds one every `interval`, `count` in all, saying how many it wrote.
    private func writeItems(_ count: Int, apart interval: Duration) async {
        items.items = []
        state = "written 0"
        for item in stride(from: 1, through: count, by: 1) {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            items.items.append(item)
            state = "written \(item)"
        }
    }
}

/// `pace.note`: a change to what a restart restores that no call makes, late enough that the call which opened the
/// screen was made durable first, and after which the session is idle at once: a replay's settle ends with it, at the
/// next poll. A screen brought back (a restart, a reload's rebuild) keeps the note it was saved with and sets none, so
/// that what it shows after a kill -9 is what was on disk. The note comes with a text of a quarter of a megabyte, kept
/// with it: its write takes long enough that a reply which does not wait for it is sent before it lands.
@MainActor
@Observable
final class PaceNoteViewModel: RestorableViewModel {
    struct Saved: Codable, Equatable {
        var note: String
        var text: String
    }

    /// The note, which front ends see: empty until set.
    private(set) var state = ""
    private var text = ""
    private var broughtBack = false

    var restorableState: Saved { Saved(note: state, text: text) }

    func restore(from saved: Saved) {
        (state, text) = (saved.note, saved.text)
        broughtBack = true
    }

    func onAppear() async {
        guard !broughtBack else { return }
        try? await Task.sleep(for: PaceViewModel.loadTime)
        guard !Task.isCancelled else { return }
        (state, text) = ("noted", String(repeating: "a quarter of a megabyte ", count: 10_923))
    }
}
