import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import HomeFeature

@Suite("The current user, over the session repository and the host's store")
struct SessionTests {
    private func makeUseCase(_ store: InMemoryKeyValueStore) -> GetCurrentUserIDUseCase {
        GetCurrentUserIDUseCase(
            repository: SessionRepositoryImpl(dataSource: SessionStoreDataSource(store: store), logger: .silent)
        )
    }

    @Test("A device without a session is signed in as u1, and the session is stored")
    func defaultSession() async throws {
        let store = InMemoryKeyValueStore()
        #expect(try await makeUseCase(store).execute() == "u1")
        #expect(await store.values["session"] == ["userID": "u1"])
    }

    @Test("A stored session gives its user")
    func storedSession() async throws {
        let store = InMemoryKeyValueStore(["session": ["userID": "u2"]])
        #expect(try await makeUseCase(store).execute() == "u2")
        #expect(await store.writes.isEmpty)
    }

    @Test("A store that fails makes reading the session fail")
    func storeFailure() async {
        let store = InMemoryKeyValueStore()
        await store.failEveryCall(with: TestError.unavailable)
        await #expect(throws: TestError.unavailable) { try await makeUseCase(store).execute() }
    }
}
