// Shows that a `Task.immediate` the optimizer does not inline gets a task-executor preference it was not given
// (Swift 6.3.1): every hop in the task then takes the task's status-record lock. `run.sh` beside this file builds it
// and counts that lock's instructions under callgrind, for tasks started each way. docs/architecture.md, sessions 18
// and 20.

import Dispatch
import Glibc
@_spi(MainActorUtilities) import _Concurrency

@inline(never) @MainActor func hop(_ value: Int) async -> Int { value &+ 1 }

/// Ten hops to the main actor, in a task started by `Task.immediate` from a function the optimizer keeps whole: the
/// call is to a shared specialization of `Task.immediate`, which receives the `nil` executor preference at run time.
@inline(never) @MainActor func startOutOfLine(_ first: Int) -> Task<Int, Never> {
    Task.immediate { @MainActor in
        var value = first
        for _ in 0..<10 { value = await hop(value) }
        return value
    }
}

/// The same task started from the same kind of function by `Task.startOnMainActor`, which takes no executor
/// preference: what navhostd does (`Screen.startTask`).
@inline(never) @MainActor func startOnMainActorOutOfLine(_ first: Int) -> Task<Int, Never> {
    Task.startOnMainActor {
        var value = first
        for _ in 0..<10 { value = await hop(value) }
        return value
    }
}

/// The same task, started in a loop, where the optimizer inlines `Task.immediate` and folds the `nil` away.
@MainActor func startInLoop(_ count: Int) -> [Task<Int, Never>] {
    var tasks: [Task<Int, Never>] = []
    for first in 0..<count {
        tasks.append(
            Task.immediate { @MainActor in
                var value = first
                for _ in 0..<10 { value = await hop(value) }
                return value
            }
        )
    }
    return tasks
}

@main
struct TaskImmediatePreference {
    static func main() {
        let mode = CommandLine.arguments.dropFirst().first
        MainActor.assumeIsolated {
            let tasks =
                switch mode {
                case "out-of-line": (0..<1000).map { startOutOfLine($0) }
                case "start-on-main-actor": (0..<1000).map { startOnMainActorOutOfLine($0) }
                default: startInLoop(1000)
                }
            Task.immediate { @MainActor in
                var sum = 0
                for task in tasks { sum &+= await task.value }
                print(sum)
                exit(0)
            }
        }
        dispatchMain()
    }
}
