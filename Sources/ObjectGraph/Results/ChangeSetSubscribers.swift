
/// The open ``FetchedResultsController/changes`` sequences of one controller.
final class ChangeSetSubscribers: Sendable {
    private let continuations = Locked<(next: Int, open: [Int: AsyncStream<ResultsChangeSet>.Continuation])>((0, [:]))

    /// A new sequence; it leaves the list when its iteration ends.
    func makeStream() -> AsyncStream<ResultsChangeSet> {
        let (stream, continuation) = AsyncStream.makeStream(of: ResultsChangeSet.self)
        let key = continuations.withLock { state in
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in self?.continuations.withLock { _ = $0.open.removeValue(forKey: key) } }
        return stream
    }

    /// Hands `changes` to every open sequence, in the order they were made.
    func yield(_ changes: ResultsChangeSet) {
        let open = continuations.withLock { $0.open.sorted { $0.key < $1.key }.map(\.value) }
        for continuation in open { continuation.yield(changes) }
    }

    /// Ends every sequence.
    func finishAll() {
        let open = continuations.withLock { state in defer { state.open = [:] }; return Array(state.open.values) }
        for continuation in open { continuation.finish() }
    }
}
