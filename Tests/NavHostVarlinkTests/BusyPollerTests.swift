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

    @Test(
        "The reply starts the window again: the client's answer to it finds the loop polling, however long ago its read"
    )
    func replyStartsTheWindowAgain() async throws {
        try await MultiThreadedEventLoopGroup.withEventLoopGroup(numberOfThreads: 1) { group in
            let loop = group.next()
            guard let poller = await BusyPoller.start(on: loop, window: .seconds(2), awaitingWindow: .seconds(60))
            else { return }
            func polling() async throws -> Bool { try await loop.submit { poller.isPolling }.get() }

            try await loop.submit {
                poller.noteRead()
                poller.noteReplyAwaited()
            }.get()
            // Past the window since the read: the awaited reply alone keeps the loop polling.
            try await Task.sleep(for: .milliseconds(2_500))
            try await loop.submit { poller.noteReplyGiven() }.get()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await polling(), "within the window since the reply")
            poller.stop()
        }
    }

    @Test(
        "An awaited reply keeps the loop polling only for the awaiting window after its call suspended, whatever is read meanwhile; never when the window is off"
    )
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
            // Still awaited, past its window: a read polls for the read's window alone.
            try await loop.submit { poller.noteRead() }.get()
            try await Task.sleep(for: .milliseconds(30))
            #expect(try await !polling(), "a read after the awaiting window does not extend it")

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
