/// An action registered with ``InterruptCounter/whenInterrupted(_:)``; cancel it when done.
struct InterruptRegistration: Sendable {
    let counter: InterruptCounter
    let id: Int

    /// Stops the action from running at later interrupts.
    func cancel() { counter.removeListener(id) }
}
