/// What one run of `recipes` was asked to do, parsed from its arguments.
///
/// `recipes [STORE] [--memory] [--deterministic] [--bail] [-c COMMAND]... [-f SCRIPT]...`
/// opens a shell; `recipes generate --count N --seed S --output FILE` writes a
/// generated catalogue; `recipes exercise list|check N|hint N` works through the teaching
/// exercises; `--help` prints the usage. The parser is
/// ``InvocationParser``; the value is `Sendable` so any layer may keep it.
///
/// ```swift
/// let invocation = try InvocationParser.parse(["shop.sqlite", "-c", "count Recipe"])
/// // invocation.action == .shell, invocation.steps == [.command("count Recipe")]
/// ```
struct Invocation: Sendable, Equatable {
    /// One batch input given on the command line, run in the order given.
    enum Step: Sendable, Equatable {
        /// `-c COMMAND`: one command line.
        case command(String)
        /// `-f SCRIPT`: a script file, run line by line.
        case script(path: String)
    }

    /// A tutorial named on the command line.
    enum Tutorial: Sendable, Equatable {
        /// `tutorial N`: a number or the start of a file name in the Tutorials folder.
        case named(String)
        /// `--tutorial FILE`: a Markdown file.
        case file(String)
    }

    /// The mode of this run.
    enum Action: Sendable, Equatable {
        /// Open the shell: interactive, from standard input, or running ``Invocation/steps``.
        case shell
        /// `recipes generate`: write a generated catalogue to `output`.
        case generate(count: Int, seed: UInt64, output: String)
        /// `recipes bench stacks`: the context-stack experiment on `count` objects, its
        /// memory chart written to `plot`; with `only`, one stack's run as JSON.
        case benchStacks(count: Int, plot: String?, only: String?)
        /// `recipes tutorial` without a name: list the tutorials.
        case listTutorials
        /// `recipes exercise list|check N|hint N`: the teaching exercises.
        case exercise(ExerciseRequest)
        /// `--help` / `-h`: print the usage and exit 0.
        case help
    }

    /// The mode of this run.
    var action: Action = .shell
    /// The store file to open (`STORE`), or `nil` for the default (or with `--memory`).
    var storePath: String?
    /// `--memory`: use an in-memory store that disappears on exit.
    var isInMemory = false
    /// `--deterministic`: reproducible output (fixed ids and clock; no progress bars).
    var isDeterministic = false
    /// `--bail`: stop at the first failing command of a batch run.
    var bailsOnError = false
    /// `recipes tutorial N` or `--tutorial FILE`: the tutorial to walk through (a number or
    /// name with `tutorial`, a path with `--tutorial`), in an in-memory catalogue unless a
    /// STORE is given.
    var tutorial: Tutorial?
    /// The `-c` and `-f` inputs in the order given; when non-empty, the shell runs them and exits.
    var steps: [Step] = []
}
