/// The settings of a ``REPLSession`` that come from the command line.
struct SessionOptions: Sendable, Equatable {
    /// `--bail`: stop a batch or piped run at the first failing command.
    var bailsOnError = false
    /// `--deterministic`: no progress bars (the handler handles ids and clocks).
    var isDeterministic = false

    /// The session settings of `invocation`.
    init(_ invocation: Invocation) {
        bailsOnError = invocation.bailsOnError
        isDeterministic = invocation.isDeterministic
    }

    /// Explicit settings.
    init(bailsOnError: Bool = false, isDeterministic: Bool = false) {
        self.bailsOnError = bailsOnError
        self.isDeterministic = isDeterministic
    }
}
