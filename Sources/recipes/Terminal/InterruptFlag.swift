/// A cancellation token for one command: raised when the user presses Ctrl-C after it started.
///
/// Long commands poll it between batches (synchronous loops cannot see Swift task
/// cancellation while they run on the main actor). It is `Sendable`, so a command may
/// hand it to background work.
///
/// ```swift
/// for batch in batches {
///     try context.interrupt.check()        // throws CancellationError after Ctrl-C
///     try importBatch(batch)
/// }
/// ```
struct InterruptFlag: Sendable {
    let counter: InterruptCounter
    let baseline: Int

    /// True once Ctrl-C was pressed since the command started.
    var isRaised: Bool { counter.count != baseline }

    /// Throws `CancellationError` if Ctrl-C was pressed since the command started.
    ///
    /// The session reports a `CancellationError` as `interrupted`.
    func check() throws(CancellationError) {
        if isRaised { throw CancellationError() }
    }

    /// A flag that is never raised, for code run outside a session.
    static var never: InterruptFlag { InterruptFlag(counter: InterruptCounter(), baseline: 0) }
}
