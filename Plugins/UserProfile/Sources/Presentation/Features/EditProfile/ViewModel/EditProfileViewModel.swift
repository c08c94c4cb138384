import NavHostKit
import Observation

/// The edit screen, `profile.edit`: changes a user's name and email address.
///
/// The form starts from the stored profile. Saving goes through ``UpdateUserProfileUseCase``, which validates: a
/// field it refuses shows its error here and nothing is saved; a successful save pops back to the profile.
///
/// Its state on the wire, after a refused save:
///
/// ```json
/// {"status":"loaded","value":{"name":"Ada Lovelace","email":"ada@","nameError":null,
///  "emailError":"Enter an email address like name@example.com.","isSaving":false,"saveError":null}}
/// ```
@MainActor
@Observable
final class EditProfileViewModel: ViewModel {

    /// What the user can do on the edit screen.
    enum Intent: ViewModelIntent {
        /// The name field now reads `name`.
        case onChangedName(name: String)
        /// The email field now reads `email`.
        case onChangedEmail(email: String)
        /// Saves the form and, if it is accepted, goes back.
        case onTappedSave
        /// Goes back without saving.
        case onTappedCancel
        /// Loads the profile again after a failure.
        case onTappedRetry

        static let names = ["onChangedName", "onChangedEmail", "onTappedSave", "onTappedCancel", "onTappedRetry"]
    }

    /// The form as front ends show it. A field without an error has `null` there.
    struct Form: Encodable, Equatable, Sendable {
        var name: String
        var email: String
        /// Why the name was refused, from the last save.
        var nameError: String?
        /// Why the email address was refused, from the last save.
        var emailError: String?
        /// Whether a save is under way.
        var isSaving = false
        /// Why the last save failed for a reason other than the fields.
        var saveError: String?

        private enum CodingKeys: String, CodingKey {
            case name, email, nameError, emailError, isSaving, saveError
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(email, forKey: .email)
            try container.encode(nameError, forKey: .nameError)
            try container.encode(emailError, forKey: .emailError)
            try container.encode(isSaving, forKey: .isSaving)
            try container.encode(saveError, forKey: .saveError)
        }
    }

    /// Thrown by a save sent while another is under way.
    struct SaveUnderWay: Error, CustomStringConvertible {
        var description: String { "a save of this form is under way" }
    }

    // MARK: Private Properties

    private let userID: String
    private let getUserProfileUseCase: any GetUserProfileUseCaseProtocol
    private let updateUserProfileUseCase: any UpdateUserProfileUseCaseProtocol
    private let router: Router<ProfileRoute>
    private let logger: FeatureLogger
    /// Holds an edit or a save sent while the profile loads until it has.
    @ObservationIgnored private let loadCompletion = LoadCompletion()

    // MARK: Public Properties

    private(set) var state: LoadingState<Form> = .idle

    // MARK: Initialization

    init(
        userID: String,
        getUserProfileUseCase: any GetUserProfileUseCaseProtocol,
        updateUserProfileUseCase: any UpdateUserProfileUseCaseProtocol,
        router: Router<ProfileRoute>,
        logger: FeatureLogger
    ) {
        self.userID = userID
        self.getUserProfileUseCase = getUserProfileUseCase
        self.updateUserProfileUseCase = updateUserProfileUseCase
        self.router = router
        self.logger = logger
    }

    // MARK: Lifecycle

    func onAppear() async {
        await loadProfile()
    }

    // MARK: Public Functions

    /// Handles an intent. One that needs the form waits while the profile loads (a front end may send it right
    /// after navigating here), and fails when there is no form (its load failed): never answered as done while it
    /// did nothing.
    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onChangedName(let name): try await onChangedName(name)
        case .onChangedEmail(let email): try await onChangedEmail(email)
        case .onTappedSave: try await onTappedSave()
        case .onTappedCancel: onTappedCancel()
        case .onTappedRetry: await onTappedRetry()
        }
    }

    func onChangedName(_ name: String) async throws {
        _ = try await loadCompletion.value(of: state)
        updateForm {
            $0.name = name
            $0.nameError = nil
        }
    }

    func onChangedEmail(_ email: String) async throws {
        _ = try await loadCompletion.value(of: state)
        updateForm {
            $0.email = email
            $0.emailError = nil
        }
    }

    /// Saves the form. A second save while one is under way is refused (`SaveUnderWay`): answered as done, it would
    /// say the form is saved before the first save has finished.
    func onTappedSave() async throws {
        let form = try await loadCompletion.value(of: state)
        guard !form.isSaving else { throw SaveUnderWay() }
        updateForm {
            $0.isSaving = true
            $0.nameError = nil
            $0.emailError = nil
            $0.saveError = nil
        }
        do {
            let saved = try await updateUserProfileUseCase.execute(
                ProfileUpdate(userID: userID, name: form.name, email: form.email)
            )
            updateForm {
                $0.name = saved.name
                $0.email = saved.email
                $0.isSaving = false
            }
            router.pop()
        } catch let error as ProfileValidationError {
            updateForm {
                $0.isSaving = false
                switch error.field {
                case .name: $0.nameError = formatValidationError(error)
                case .email: $0.emailError = formatValidationError(error)
                }
            }
        } catch {
            logger.error("profile.saveFailed", metadata: ["userID": "\(userID)", "error": "\(error)"])
            updateForm {
                $0.isSaving = false
                $0.saveError = "Your changes could not be saved. Please try again."
            }
        }
    }

    func onTappedCancel() {
        router.pop()
    }

    func onTappedRetry() async {
        await loadProfile()
    }
}

// MARK: - Private Functions

private extension EditProfileViewModel {
    func loadProfile() async {
        guard !state.isLoading else { return }
        state = .loading
        defer { loadCompletion.signal() }
        do {
            let profile = try await getUserProfileUseCase.execute(userID: userID)
            state = .loaded(Form(name: profile.name, email: profile.email))
        } catch {
            logger.error("profile.edit.loadFailed", metadata: ["userID": "\(userID)", "error": "\(error)"])
            state = .error(formatLoadError(error))
        }
    }

    /// Changes the form in place; does nothing while there is no form (loading, or failed to load).
    func updateForm(_ change: (inout Form) -> Void) {
        guard var form = state.value else { return }
        change(&form)
        state = .loaded(form)
    }

    func formatValidationError(_ error: ProfileValidationError) -> String {
        switch error {
        case .emptyName: "Enter a name."
        case .nameTooLong(let maximum): "Use at most \(maximum) characters."
        case .invalidEmail: "Enter an email address like name@example.com."
        }
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
