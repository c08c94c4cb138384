public import NavHostJSON

/// The replies to a `more` call, as output parameters, in the order the service sent them.
///
/// The sequence ends after the reply without `continues`. It throws ``VarlinkError`` when the call ends with an error
/// reply, and ``VarlinkClientError`` when the connection fails first. Iterate it once.
public struct VarlinkReplySequence: AsyncSequence, Sendable {
    public typealias Element = JSONObject

    private let replies: AsyncThrowingStream<VarlinkReply, any Error>

    init(replies: AsyncThrowingStream<VarlinkReply, any Error>) {
        self.replies = replies
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(replies: replies.makeAsyncIterator())
    }

    /// Iterates the replies.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var replies: AsyncThrowingStream<VarlinkReply, any Error>.AsyncIterator

        init(replies: AsyncThrowingStream<VarlinkReply, any Error>.AsyncIterator) {
            self.replies = replies
        }

        public mutating func next() async throws -> JSONObject? {
            guard let reply = try await replies.next() else { return nil }
            if let error = reply.varlinkError { throw error }
            return reply.parameters
        }
    }
}
