import NavHostKit
import Synchronization

// MARK: - Entities

struct Item: Codable, Equatable, Sendable {
    var id: String
    var name: String
    var ownerID: String
}

enum CatalogFailure: Error, Equatable {
    case offline
}

// MARK: - Use Cases

protocol GetItemsUseCaseProtocol: Sendable {
    func execute() async throws -> [Item]
}

protocol SaveItemUseCaseProtocol: Sendable {
    func execute(name: String) async throws
}

/// A use case whose every call waits until the test answers it, so tests can see `.loading` and cancel mid-flight.
final class ControlledUseCase<Output: Sendable>: Sendable {
    private let calls: AsyncStream<CheckedContinuation<Output, any Error>>
    private let callsContinuation: AsyncStream<CheckedContinuation<Output, any Error>>.Continuation
    let cancellations = Counter()

    init() {
        (calls, callsContinuation) = AsyncStream.makeStream()
    }

    func call() async throws -> Output {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { callsContinuation.yield($0) }
        } onCancel: {
            cancellations.increment()
        }
    }

    /// Waits for the next call and answers it.
    func answerNext(with result: Result<Output, any Error>) async {
        var iterator = calls.makeAsyncIterator()
        guard let continuation = await iterator.next() else { return }
        continuation.resume(with: result)
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func increment() { value.withLock { $0 += 1 } }
}

final class ControlledGetItemsUseCase: GetItemsUseCaseProtocol {
    let control = ControlledUseCase<[Item]>()
    func execute() async throws -> [Item] { try await control.call() }
}

final class ControlledSaveItemUseCase: SaveItemUseCaseProtocol {
    let control = ControlledUseCase<Void>()
    func execute(name: String) async throws { try await control.call() }
}

/// Answers at once from a fixed list.
struct StubGetItemsUseCase: GetItemsUseCaseProtocol {
    var items: [Item]
    func execute() async throws -> [Item] { items }
}

extension Item {
    static let lamp = Item(id: "i1", name: "Lamp", ownerID: "u1")
    static let desk = Item(id: "i2", name: "Desk", ownerID: "u2")
}
