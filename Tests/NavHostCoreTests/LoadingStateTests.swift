import NavHostKit
import Testing

/// The SDK's `LoadingState`, alone: its equality, which an `@Observable` ViewModel asks on every assignment of its
/// state to decide whether watchers hear of a change.
@Suite("Comparing loading states")
struct LoadingStateTests {
    /// One state of each case, and a second of each case that carries a value, with another value.
    static let states: [LoadingState<[Int]>] = [
        .idle, .loading, .loaded([1, 2]), .loaded([3]), .loaded([]), .error("no"), .error("gone"), .error(""),
    ]

    @Test("Two states are equal exactly when they are the same case with equal values, for every pair of cases")
    func equalExactlyWhenSameCaseAndValue() {
        for (leftIndex, left) in Self.states.enumerated() {
            for (rightIndex, right) in Self.states.enumerated() {
                #expect((left == right) == (leftIndex == rightIndex), "\(left) == \(right)")
                #expect((left != right) == (leftIndex != rightIndex), "\(left) != \(right)")
            }
        }
    }

    @Test("States made apart compare by what they hold, not by where they were made")
    func equalCopiesMadeApart() {
        #expect(LoadingState<[Int]>.loaded([1, 2]) == .loaded(Array(1...2)))
        #expect(LoadingState<String>.error("no") == .error(String(["n", "o"])))
        #expect(LoadingState<String>.loaded("") != .error(""))
        #expect(LoadingState<String>.idle != .loading)
    }
}
