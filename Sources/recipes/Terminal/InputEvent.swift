/// One read from the input thread, with the ack that lets the thread read again.
struct InputEvent: Sendable {
    /// What was read.
    let kind: LineEditorEvent
    /// Answer it exactly once: ``InputAck/readNext(prompt:recordsHistory:)`` or ``InputAck/stop()``.
    let ack: InputAck
}
