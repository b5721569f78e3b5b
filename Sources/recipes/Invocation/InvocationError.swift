/// A command line that ``InvocationParser`` refused; `recipes` prints it and exits 2.
///
/// The message is one sentence for the user, without the `recipes: error: ` prefix that
/// the caller adds; ``hint`` is an optional second line (a suggestion or the usage pointer).
///
/// ```
/// recipes: error: unknown option '--bial'
/// Did you mean '--bail'? See 'recipes --help'.
/// ```
struct InvocationError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, for example `unknown option '--bial'`.
    var message: String
    /// What to do about it, printed on the next line.
    var hint: String = "See 'recipes --help'."

    var description: String { message }

    /// The process exit status for a usage error, as with most Unix tools.
    static let exitStatus: Int32 = 2
}
