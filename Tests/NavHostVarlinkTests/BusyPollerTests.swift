import Foundation
import IntegrationHarness
import NIOCore
import NIOPosix
import Testing

@testable import NavHostVarlink

/// The loop's poller on a real event loop: a call whose reply is awaited keeps the loop polling past the window after
/// its read, the reply starts the window again, and the polling ends either way.
@Suite("The event loop's poller")
struct BusyPollerTests {
    @Test(
        "Polling lasts the window after a read; while a reply is awaited, the longer window; the reply starts it again"
    )
    func awaitedReplyKeepsTheLoopPolling() async throws {
        try await MultiThreadedEventLoopGroup.withEventLoopGroup(numberOfThreads: 1) { group in
            let loop = group.next()
            // A window that covers nothing, and a long one for awaited replies: what the test sees is which applies.
            guard
                let poller = await BusyPoller.start(on: loop, window: .microseconds(1), awaitingWindow: .seconds(60))
            else { return }  // a machine, or a process, with one CPU: nothing polls
            func polling() async throws -> Bool { try await loop.submit { poller.isPolling }.get() }

            try await loop.submit { poller.noteRead() }.get()
            #expect(try await pollUntil(within: .seconds(10)) { try await !polling() }, "the window passes")

            try await loop.submit {
                poller.noteRead()
                poller.noteReplyAwaited()
            }.get()
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await polling(), "a reply is awaited: the loop polls on")

            try await loop.submit { poller.noteReplyGiven() }.get()
            #expect(try await pollUntil(within: .seconds(10)) { try await !polling() }, "the reply went out")
            poller.stop()
        }
    }

    @Test("An awaited reply keeps the loop polling only for the awaiting window after the read; never when it is off")
    func awaitingWindowEnds() async throws {
        try await MultiThreadedEventLoopGroup.withEventLoopGroup(numberOfThreads: 1) { group in
            let loop = group.next()
            guard
                let poller = await BusyPoller.start(
                    on: loop,
                    window: .microseconds(1),
                    awaitingWindow: .milliseconds(50)
                )
            else { return }
            func polling() async throws -> Bool { try await loop.submit { poller.isPolling }.get() }

            try await loop.submit {
                poller.noteRead()
                poller.noteReplyAwaited()
            }.get()
            #expect(try await pollUntil(within: .seconds(10)) { try await !polling() }, "the awaiting window passes")

            poller.window = nil
            try await loop.submit {
                poller.noteRead()
                poller.noteReplyAwaited()
                poller.noteReplyGiven()
            }.get()
            #expect(try await !polling(), "off, nothing polls")
            poller.stop()
        }
    }
}
