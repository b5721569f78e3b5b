/// One read from the input thread, with the ack that lets the thread read again.
struct InputEvent: Sendable {
    /// What was read.
    let kind: LineEditorEvent
    /// Answer it exactly once: ``InputAck/readNext(prompt:recordsHistory:)`` or ``InputAck/stop()``.
    let ack: InputAck
    /// The Ctrl-C count when the read ended, taken on the input thread, so that a Ctrl-C
    /// pressed between Enter and the start of the command still stops it; nil when the
    /// thread was given no counter.
    var interruptsAtRead: Int? = nil
}
