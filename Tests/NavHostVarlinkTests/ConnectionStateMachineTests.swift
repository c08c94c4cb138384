import NIOCore
import NavHostVarlink
import Testing

@testable import NavHostVarlink

@Suite("The rules of one server connection, without I/O")
struct ConnectionStateMachineTests {
    typealias Machine = Connection.StateMachine
    typealias Action = Machine.Action

    let plain = VarlinkCall(method: "a.b.C")
    let oneway = VarlinkCall(method: "a.b.C", oneway: true)
    let more = VarlinkCall(method: "a.b.C", more: true)

    func id(_ value: Int) -> Machine.CallID { Machine.CallID(value: value) }
    func reply(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("Replies go out in call order when handlers finish out of order")
    func repliesInOrder() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 8)
        #expect(machine.receivedCall(plain) == [.startCall(id(0))])
        #expect(machine.receivedCall(plain) == [.startCall(id(1))])
        #expect(machine.receivedCall(plain) == [.startCall(id(2))])
        #expect(machine.callFinished(id(2), reply: reply("r2")) == [])
        #expect(machine.callFinished(id(1), reply: reply("r1")) == [])
        #expect(
            machine.callFinished(id(0), reply: reply("r0"))
                == [
                    .write(reply("r0")), .allowNextCall, .write(reply("r1")), .allowNextCall, .write(reply("r2")),
                    .allowNextCall,
                ]
        )
        #expect(machine.pendingCalls == 0)
    }

    @Test("With one handler at a time, the next call starts when the previous finishes")
    func sequential() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        #expect(machine.receivedCall(plain) == [.startCall(id(0))])
        #expect(machine.receivedCall(plain) == [])
        #expect(
            machine.callFinished(id(0), reply: reply("r0")) == [
                .write(reply("r0")), .allowNextCall, .startCall(id(1)),
            ]
        )
    }

    @Test("A oneway call keeps its place but writes nothing")
    func onewayWritesNothing() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 4)
        _ = machine.receivedCall(oneway)
        _ = machine.receivedCall(plain)
        #expect(machine.callFinished(id(1), reply: reply("r1")) == [])
        #expect(machine.callFinished(id(0), reply: nil) == [.allowNextCall, .write(reply("r1")), .allowNextCall])
    }

    @Test("A more call waits for earlier calls, runs alone, and streams while at the head")
    func moreRunsAlone() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 4)
        #expect(machine.receivedCall(plain) == [.startCall(id(0))])
        #expect(machine.receivedCall(more) == [])
        #expect(machine.receivedCall(plain) == [])
        #expect(machine.runningStreamCall == nil, "a more call streams only once it runs")
        #expect(
            machine.callFinished(id(0), reply: reply("r0")) == [
                .write(reply("r0")), .allowNextCall, .startCall(id(1)),
            ]
        )
        #expect(machine.runningStreamCall == id(1))
        #expect(
            machine.callFinished(id(1), reply: reply("f1")) == [
                .write(reply("f1")), .allowNextCall, .startCall(id(2)),
            ]
        )
        #expect(machine.runningStreamCall == nil, "no stream reply after the final one")
    }

    @Test("When the input ends, calls already received are answered, then the connection closes")
    func inputEndDrains() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        _ = machine.receivedCall(plain)
        #expect(machine.inputEnded() == [])
        #expect(machine.receivedCall(plain) == [])
        #expect(machine.callFinished(id(0), reply: reply("r0")) == [.write(reply("r0")), .allowNextCall, .close])
        #expect(machine.isClosed)
    }

    @Test("An idle connection closes at once when its input ends or the server shuts down")
    func idleCloses() {
        var ended = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        #expect(ended.inputEnded() == [.close])
        var shutDown = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        #expect(shutDown.shutdownRequested() == [.close])
    }

    @Test("Shutdown cancels a running stream and closes after its final reply")
    func shutdownCancelsStream() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        _ = machine.receivedCall(more)
        #expect(machine.shutdownRequested() == [.cancelStream])
        #expect(machine.runningStreamCall == id(0), "a cancelled stream may still send until its handler ends")
        #expect(machine.callFinished(id(0), reply: reply("end")) == [.write(reply("end")), .allowNextCall, .close])
    }

    @Test("A failure ends a running stream's replies at once")
    func failureEndsStream() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        _ = machine.receivedCall(more)
        #expect(machine.runningStreamCall == id(0))
        #expect(machine.connectionFailed() == [.close])
        #expect(machine.runningStreamCall == nil)
    }

    @Test("A failure closes at once and drops what was not written")
    func failureCloses() {
        var machine = Machine(maxPendingCalls: 8, maxConcurrentCalls: 1)
        _ = machine.receivedCall(plain)
        #expect(machine.connectionFailed() == [.close])
        #expect(machine.callFinished(id(0), reply: reply("r0")) == [])
        #expect(machine.connectionFailed() == [])
    }
}

// MARK: - Each event's actions as a value

/// The events as the tests read them: each returns the actions it appended to an empty buffer.
extension Connection.StateMachine {
    fileprivate mutating func receivedCall(_ call: VarlinkCall) -> [Action] {
        collect { $0.receivedCall(call, into: &$1) }
    }

    fileprivate mutating func callFinished(_ id: CallID, reply: ByteBuffer?) -> [Action] {
        collect { $0.callFinished(id, reply: reply, into: &$1) }
    }

    fileprivate mutating func inputEnded() -> [Action] {
        collect { $0.inputEnded(into: &$1) }
    }

    fileprivate mutating func shutdownRequested() -> [Action] {
        collect { $0.shutdownRequested(into: &$1) }
    }

    fileprivate mutating func connectionFailed() -> [Action] {
        collect { $0.connectionFailed(into: &$1) }
    }

    private mutating func collect(_ event: (inout Self, inout [Action]) -> Void) -> [Action] {
        var actions: [Action] = []
        event(&self, &actions)
        return actions
    }
}
