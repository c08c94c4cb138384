import NavHostKit
import Observation

/// The profile screen, `profile.user`: the seeds' `UserProfileViewModel`, made real.
///
/// It follows the profile while it is on the stack, so that it shows a change saved on the edit screen as soon as
/// that screen pops back to it.
///
/// Its state on the wire:
///
/// ```json
/// {"status":"loaded","value":{"id":"u1","name":"Ada Lovelace","initials":"AL",
///  "email":"ada.lovelace@example.org","memberSince":"Member since June 1833"}}
/// ```
@MainActor
@Observable
final class UserProfileViewModel: ViewModel {

    /// What the user can do on the profile screen.
    enum Intent: ViewModelIntent {
        /// Loads the profile again after a failure.
        case onTappedRetry
        /// Opens the edit screen for this profile.
        case onTappedEditProfile

        static let names = ["onTappedRetry", "onTappedEditProfile"]
    }

    /// The profile as front ends show it.
    struct Profile: Encodable, Equatable, Sendable {
        var id: String
        var name: String
        /// Up to two letters for an avatar, like `AL`.
        var initials: String
        var email: String
        /// Like `Member since June 1833`.
        var memberSince: String
    }

    // MARK: Private Properties

    @ObservationIgnored private var following: Task<Void, Never>?

    private let userID: String
    private let getUserProfileUseCase: any GetUserProfileUseCaseProtocol
    private let observeUserProfileUseCase: any ObserveUserProfileUseCaseProtocol
    private let router: Router<ProfileRoute>
    private let logger: FeatureLogger
    /// Holds an intent sent while the profile loads until it has.
    @ObservationIgnored private let loadCompletion = LoadCompletion()

    // MARK: Public Properties

    private(set) var state: LoadingState<Profile> = .idle

    // MARK: Initialization

    init(
        userID: String,
        getUserProfileUseCase: any GetUserProfileUseCaseProtocol,
        observeUserProfileUseCase: any ObserveUserProfileUseCaseProtocol,
        router: Router<ProfileRoute>,
        logger: FeatureLogger
    ) {
        self.userID = userID
        self.getUserProfileUseCase = getUserProfileUseCase
        self.observeUserProfileUseCase = observeUserProfileUseCase
        self.router = router
        self.logger = logger
    }

    isolated deinit {
        following?.cancel()
    }

    // MARK: Lifecycle

    func onAppear() async {
        guard following == nil else { return }
        // Loading from the start: an intent sent meanwhile waits for the profile.
        state = .loading
        // Follow first, so that a change saved while the profile loads is not missed.
        let changes = await observeUserProfileUseCase.execute(userID: userID)
        following = Task { [weak self] in
            for await profile in changes {
                // A profile that arrived before onDisappear cancelled the task, but is taken after, is not shown.
                guard let self, !Task.isCancelled else { return }
                self.state = .loaded(self.formatProfile(profile))
            }
        }
        await loadProfile()
    }

    func onDisappear() {
        following?.cancel()
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedRetry: await onTappedRetry()
        case .onTappedEditProfile: try await onTappedEditProfile()
        }
    }

    /// Opens the edit screen once the profile has loaded (a front end may send it right after navigating here); fails
    /// when the profile did not load.
    func onTappedEditProfile() async throws {
        _ = try await loadCompletion.value(of: state)
        router.navigate(to: .edit(userID: userID))
    }

    func onTappedRetry() async {
        guard !state.isLoading else { return }
        await loadProfile()
    }
}

// MARK: - Private Functions

private extension UserProfileViewModel {
    func loadProfile() async {
        state = .loading
        defer { loadCompletion.signal() }
        do {
            let profile = try await getUserProfileUseCase.execute(userID: userID)
            state = .loaded(formatProfile(profile))
            logger.debug("profile.loaded", metadata: ["userID": "\(userID)"])
        } catch {
            logger.error("profile.loadFailed", metadata: ["userID": "\(userID)", "error": "\(error)"])
            state = .error(formatLoadError(error))
        }
    }

    func formatProfile(_ profile: UserProfile) -> Profile {
        Profile(
            id: profile.id,
            name: profile.name,
            initials: formatInitials(profile.name),
            email: profile.email,
            memberSince: "Member since \(formatMonth(profile.memberSince))"
        )
    }

    func formatInitials(_ name: String) -> String {
        let words = name.split(whereSeparator: \.isWhitespace)
        let letters = [words.first, words.count > 1 ? words.last : nil].compactMap { $0?.first }
        return String(letters).uppercased()
    }

    func formatMonth(_ day: CalendarDay) -> String {
        let months = [
            "January", "February", "March", "April", "May", "June",
            "July", "August", "September", "October", "November", "December",
        ]
        return "\(months[day.month - 1]) \(day.year)"
    }

    func formatLoadError(_ error: any Error) -> String {
        switch error {
        case UserProfileError.userNotFound:
            "There is no user with this ID."
        default:
            "The profile could not be loaded. Please try again."
        }
    }
}
