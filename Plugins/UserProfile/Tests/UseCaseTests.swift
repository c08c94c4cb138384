import Testing

@testable import UserProfileFeature

@Suite("The profile use cases")
struct UseCaseTests {
    @Test("Getting a profile gives the repository's profile")
    func gettingAProfile() async throws {
        let useCase = GetUserProfileUseCase(repository: UserProfileRepositoryMock([.ada, .grace]))
        #expect(try await useCase.execute(userID: "u2") == .grace)
    }

    @Test("Getting an unknown user's profile throws userNotFound")
    func gettingAnUnknownProfile() async {
        let useCase = GetUserProfileUseCase(repository: UserProfileRepositoryMock([.ada]))
        await #expect(throws: UserProfileError.userNotFound(userID: "u9")) { try await useCase.execute(userID: "u9") }
    }

    @Test("Following a profile gives what the repository saves for that user")
    func followingAProfile() async throws {
        let repository = UserProfileRepositoryMock([.ada])
        let changes = await ObserveUserProfileUseCase(repository: repository).execute(userID: "u1")
        var renamed = UserProfile.ada
        renamed.name = "Augusta Ada King"
        await repository.saveProfile(renamed)

        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == renamed)
    }

    @Test("An update trims both fields, lower-cases the email address and saves")
    func validUpdate() async throws {
        let repository = UserProfileRepositoryMock([.ada])
        let saved = try await UpdateUserProfileUseCase(repository: repository).execute(
            ProfileUpdate(userID: "u1", name: "  Augusta Ada King ", email: " Ada.King@Example.ORG\n")
        )
        var expected = UserProfile.ada
        expected.name = "Augusta Ada King"
        expected.email = "ada.king@example.org"
        #expect(saved == expected)
        #expect(await repository.saved == [expected])
    }

    @Test(
        "An email address that is not like name@example.com is refused and nothing is saved",
        arguments: [
            "", "ada", "ada@", "@example.org", "ada@example", "ada@@example.org", "ada@example.", "ada@.org",
            "ada lovelace@example.org", "ada@exa mple.org", "ada@example..org",
        ]
    )
    func invalidEmail(email: String) async {
        let repository = UserProfileRepositoryMock([.ada])
        await #expect(throws: ProfileValidationError.invalidEmail) {
            try await UpdateUserProfileUseCase(repository: repository).execute(
                ProfileUpdate(userID: "u1", name: "Ada", email: email)
            )
        }
        #expect(await repository.saved.isEmpty)
    }

    @Test(
        "Email addresses of the usual forms are accepted",
        arguments: ["ada@example.org", "a.b+c@mail.example.co.uk"]
    )
    func validEmail(email: String) async throws {
        let repository = UserProfileRepositoryMock([.ada])
        let saved = try await UpdateUserProfileUseCase(repository: repository).execute(
            ProfileUpdate(userID: "u1", name: "Ada", email: email)
        )
        #expect(saved.email == email)
    }

    @Test("A blank name is refused and nothing is saved", arguments: ["", "   ", "\t\n"])
    func blankName(name: String) async {
        let repository = UserProfileRepositoryMock([.ada])
        await #expect(throws: ProfileValidationError.emptyName) {
            try await UpdateUserProfileUseCase(repository: repository).execute(
                ProfileUpdate(userID: "u1", name: name, email: "ada@example.org")
            )
        }
        #expect(await repository.saved.isEmpty)
    }

    @Test("A name of up to 80 characters is accepted; a longer one is refused")
    func nameLength() async throws {
        let repository = UserProfileRepositoryMock([.ada])
        let useCase = UpdateUserProfileUseCase(repository: repository)
        let longest = String(repeating: "a", count: UpdateUserProfileUseCase.maximumNameLength)
        _ = try await useCase.execute(ProfileUpdate(userID: "u1", name: longest, email: "ada@example.org"))
        await #expect(throws: ProfileValidationError.nameTooLong(maximum: 80)) {
            try await useCase.execute(ProfileUpdate(userID: "u1", name: longest + "a", email: "ada@example.org"))
        }
        #expect(await repository.saved.count == 1)
    }

    @Test("A name is checked before an email address")
    func nameFirst() async {
        await #expect(throws: ProfileValidationError.emptyName) {
            try await UpdateUserProfileUseCase(repository: UserProfileRepositoryMock([.ada])).execute(
                ProfileUpdate(userID: "u1", name: "", email: "nope")
            )
        }
    }

    @Test("Updating an unknown user throws userNotFound")
    func unknownUser() async {
        let repository = UserProfileRepositoryMock([.ada])
        await #expect(throws: UserProfileError.userNotFound(userID: "u9")) {
            try await UpdateUserProfileUseCase(repository: repository).execute(
                ProfileUpdate(userID: "u9", name: "Nobody", email: "nobody@example.org")
            )
        }
        #expect(await repository.saved.isEmpty)
    }
}
