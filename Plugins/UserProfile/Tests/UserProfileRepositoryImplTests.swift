import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import UserProfileFeature

@Suite("The profile repository, over the host's store")
struct UserProfileRepositoryImplTests {
    private func makeRepository(_ store: InMemoryKeyValueStore) -> UserProfileRepositoryImpl {
        UserProfileRepositoryImpl(dataSource: UserProfileStoreDataSource(store: store), logger: .silent)
    }

    @Test("An empty store is seeded with the seed users on first use")
    func seedsAnEmptyStore() async throws {
        let store = InMemoryKeyValueStore()
        let repository = makeRepository(store)

        #expect(try await repository.fetchProfile(userID: "u1") == .ada)
        #expect(try await repository.fetchProfile(userID: "u2") == .grace)
        #expect(try await repository.fetchProfile(userID: "u3").name == "Alan Turing")
        #expect(await store.values["users.seedVersion"] == 1)
        #expect(
            await store.values["users/u1"]
                == [
                    "id": "u1", "name": "Ada Lovelace", "email": "ada.lovelace@example.org",
                    "memberSince": "1833-06-05",
                ]
        )
    }

    @Test("Seeding never overwrites a stored profile")
    func seedingKeepsStoredProfiles() async throws {
        let store = InMemoryKeyValueStore([
            "users/u1": [
                "id": "u1", "name": "Augusta Ada King", "email": "ada@example.org", "memberSince": "1833-06-05",
            ]
        ])
        #expect(try await makeRepository(store).fetchProfile(userID: "u1").name == "Augusta Ada King")
        #expect(try await makeRepository(store).fetchProfile(userID: "u2") == .grace)
    }

    @Test("A store seeded once is not seeded again, even after a restart")
    func seedsOnce() async throws {
        let store = InMemoryKeyValueStore()
        _ = try await makeRepository(store).fetchProfile(userID: "u1")
        try await store.removeValue(forKey: "users/u3")

        let restarted = makeRepository(store)
        await #expect(throws: UserProfileError.userNotFound(userID: "u3")) {
            try await restarted.fetchProfile(userID: "u3")
        }
    }

    @Test("Screens loading at the same moment seed the store once")
    func concurrentLoadsSeedOnce() async throws {
        let store = InMemoryKeyValueStore()
        let repository = makeRepository(store)
        try await withThrowingTaskGroup(of: UserProfile.self) { group in
            for userID in ["u1", "u2", "u3", "u1", "u2"] {
                group.addTask { try await repository.fetchProfile(userID: userID) }
            }
            try await group.waitForAll()
        }
        #expect(await store.writes.filter { $0 == "users.seedVersion" }.count == 1)
        #expect(await store.writes.filter { $0 == "users/u1" }.count == 1)
    }

    @Test("An unknown user ID throws userNotFound")
    func unknownUser() async {
        await #expect(throws: UserProfileError.userNotFound(userID: "u9")) {
            try await makeRepository(InMemoryKeyValueStore()).fetchProfile(userID: "u9")
        }
    }

    @Test("A saved profile is there after a restart")
    func savedProfileSurvivesARestart() async throws {
        let store = InMemoryKeyValueStore()
        var renamed = UserProfile.ada
        renamed.name = "Augusta Ada King"
        try await makeRepository(store).saveProfile(renamed)

        #expect(try await makeRepository(store).fetchProfile(userID: "u1") == renamed)
    }

    @Test("A store that fails makes loading fail; once it works again, so does loading")
    func storeFailureAndRecovery() async throws {
        let store = InMemoryKeyValueStore()
        let repository = makeRepository(store)
        await store.failEveryCall(with: TestError.unavailable)
        await #expect(throws: TestError.unavailable) { try await repository.fetchProfile(userID: "u1") }

        await store.failEveryCall(with: nil)
        #expect(try await repository.fetchProfile(userID: "u1") == .ada)
    }

    @Test("A stored profile in another form is reported as corrupt")
    func corruptProfile() async {
        let store = InMemoryKeyValueStore([
            "users.seedVersion": 1,
            "users/u1": ["id": "u1", "name": "Ada", "email": "ada@example.org", "memberSince": "June 1833"],
        ])
        await #expect(
            throws: UserProfileDataError.corrupt(userID: "u1", reason: #"memberSince "June 1833" is not YYYY-MM-DD"#)
        ) {
            try await makeRepository(store).fetchProfile(userID: "u1")
        }
    }

    @Test("Saving a profile tells that user's followers, and only them")
    func savingTellsFollowers() async throws {
        let repository = makeRepository(InMemoryKeyValueStore())
        let adaChanges = await repository.profileChanges(userID: "u1")
        let graceChanges = await repository.profileChanges(userID: "u2")

        var renamed = UserProfile.ada
        renamed.name = "Augusta Ada King"
        try await repository.saveProfile(renamed)
        try await repository.saveProfile(.grace)

        var ada = adaChanges.makeAsyncIterator()
        var grace = graceChanges.makeAsyncIterator()
        #expect(await ada.next() == renamed)
        #expect(await grace.next() == .grace)
    }

    @Test("A profile survives the round trip through its stored form")
    func dtoRoundTrip() throws {
        let profile = UserProfile(
            id: "u7",
            name: "Hedy Lamarr",
            email: "hedy@example.org",
            memberSince: CalendarDay(year: 942, month: 1, day: 9)
        )
        let dto = UserProfileDTO(profile)
        #expect(dto.memberSince == "0942-01-09")
        #expect(try dto.toDomain() == profile)
    }
}
