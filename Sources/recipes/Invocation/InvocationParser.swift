/// Turns the arguments of `recipes` into an ``Invocation``.
///
/// Hand-written rather than built on swift-argument-parser because `-c` and `-f` are
/// one ordered, interleaved list: `-c A -f B -c C` must run A, then B, then C, and a
/// declarative parser collects each option into its own array and loses that order.
///
/// Accepted forms: `-c VALUE`, `-cVALUE`, `--count VALUE`, `--count=VALUE`; `--` ends
/// the options (so a store named `-odd.sqlite` can be opened as `-- -odd.sqlite`).
/// `-h`/`--help` anywhere before `--` wins over every other argument. The first
/// argument `generate` selects the generator; a store file named `generate` is opened
/// as `./generate`.
///
/// ```swift
/// let invocation = try InvocationParser.parse(["--bail", "-c", "echo a", "-f", "x.rec"])
/// // invocation.steps == [.command("echo a"), .script(path: "x.rec")]
/// ```
///
/// - Throws: ``InvocationError`` for an unknown option, a missing or malformed value,
///   or a second store path.
enum InvocationParser {
    /// The options of the shell mode, for suggestions.
    static let shellOptions = ["--memory", "--deterministic", "--bail", "--tutorial", "-c", "-f", "--help", "-h"]
    /// The options of `generate`, for suggestions.
    static let generateOptions = ["--count", "--seed", "--output", "--help", "-h"]

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(InvocationError) -> Invocation {
        let beforeSeparator = arguments.prefix { $0 != "--" }
        if beforeSeparator.contains(where: { $0 == "-h" || $0 == "--help" }) {
            return Invocation(action: .help)
        }
        if arguments.first == "generate" {
            return try parseGenerate(Array(arguments.dropFirst()))
        }
        if arguments.first == "bench" {
            return try parseBench(Array(arguments.dropFirst()))
        }
        if arguments.first == "tutorial" {
            let rest = arguments.dropFirst()
            guard let name = rest.first, !name.hasPrefix("-") else {
                guard rest.isEmpty else {
                    throw InvocationError(message: "'tutorial' takes the tutorial first: recipes tutorial N [STORE] [--deterministic]")
                }
                return Invocation(action: .listTutorials)
            }
            return try parseShell(Array(rest.dropFirst()), tutorial: .named(name))
        }
        if arguments.first == "exercise" {
            return Invocation(action: .exercise(try parseExercise(Array(arguments.dropFirst()))))
        }
        return try parseShell(arguments)
    }

    private static func parseShell(_ arguments: [String], tutorial: Invocation.Tutorial? = nil)
        throws(InvocationError) -> Invocation
    {
        var invocation = Invocation(tutorial: tutorial)
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            if reader.isPastSeparator || !argument.hasPrefix("-") || argument == "-" {
                try setStore(argument, in: &invocation)
                continue
            }
            switch argument {
            case "--memory": invocation.isInMemory = true
            case "--deterministic": invocation.isDeterministic = true
            case "--bail": invocation.bailsOnError = true
            case "--tutorial": try setTutorial(.file(try reader.value(for: "--tutorial")), in: &invocation)
            case "-c": invocation.steps.append(.command(try reader.value(for: "-c")))
            case "-f": invocation.steps.append(.script(path: try reader.value(for: "-f")))
            case _ where argument.hasPrefix("-c") && !argument.hasPrefix("--"):
                invocation.steps.append(.command(String(argument.dropFirst(2))))
            case _ where argument.hasPrefix("-f") && !argument.hasPrefix("--"):
                invocation.steps.append(.script(path: String(argument.dropFirst(2))))
            default:
                let name = String(argument.prefix { $0 != "=" })
                if ["--memory", "--deterministic", "--bail"].contains(name) {
                    throw InvocationError(message: "option '\(name)' takes no value")
                }
                throw unknownOption(name, among: shellOptions)
            }
        }
        if invocation.tutorial != nil, !invocation.steps.isEmpty {
            throw InvocationError(message: "a tutorial cannot be combined with -c or -f",
                                  hint: "Run the tutorial alone; it offers its own commands. See 'recipes --help'.")
        }
        if invocation.isInMemory, let store = invocation.storePath {
            throw InvocationError(
                message: "'--memory' and the store path '\(store)' cannot be used together",
                hint: "Give either a STORE file or --memory. See 'recipes --help'.")
        }
        return invocation
    }

    private static func setTutorial(_ tutorial: Invocation.Tutorial, in invocation: inout Invocation) throws(InvocationError) {
        guard invocation.tutorial == nil else {
            throw InvocationError(message: "only one tutorial can be walked through at a time")
        }
        if case .file(let path) = tutorial, path.isEmpty {
            throw InvocationError(message: "'--tutorial' needs a Markdown file")
        }
        invocation.tutorial = tutorial
    }

    private static func setStore(_ path: String, in invocation: inout Invocation) throws(InvocationError) {
        if let store = invocation.storePath {
            throw InvocationError(
                message: "unexpected argument '\(path)': the store is already '\(store)'",
                hint: "Only one STORE can be opened. See 'recipes --help'.")
        }
        guard !path.isEmpty else { throw InvocationError(message: "the store path is empty") }
        invocation.storePath = path
    }

    private static func parseGenerate(_ arguments: [String]) throws(InvocationError) -> Invocation {
        var count: Int?, seed: UInt64 = 0, output: String?
        var given: Set<String> = []
        /// The error for a value that is a whole number but too large for `maximum`.
        func tooLarge(_ name: String, _ text: String, _ maximum: String) -> InvocationError? {
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return InvocationError(message: "'\(name)' \(text) is too large: at most \(maximum)")
        }
        try readOptions(arguments, command: "generate") { (name, takeValue) throws(InvocationError) in
            guard given.insert(name).inserted || !["--count", "--seed", "--output"].contains(name) else {
                throw InvocationError(message: "'\(name)' is given twice; give it once")
            }
            switch name {
            case "--count":
                let text = try takeValue()
                guard let value = Int(text), value >= 0 else {
                    throw tooLarge(name, text, String(Int.max))
                        ?? InvocationError(message: "'--count' needs a whole number ≥ 0, not '\(text)'")
                }
                count = value
            case "--seed":
                let text = try takeValue()
                guard let value = UInt64(text) else {
                    throw tooLarge(name, text, String(UInt64.max))
                        ?? InvocationError(message: "'--seed' needs a whole number ≥ 0, not '\(text)'")
                }
                seed = value
            case "--output":
                let text = try takeValue()
                guard !text.isEmpty else { throw InvocationError(message: "'--output' needs a file path") }
                output = text
            default:
                throw unknownOption(name, among: generateOptions, command: "generate")
            }
        }
        guard let count else { throw InvocationError(message: "'generate' needs '--count N'") }
        guard let output else { throw InvocationError(message: "'generate' needs '--output FILE'") }
        return Invocation(action: .generate(count: count, seed: seed, output: output))
    }

    /// The options of `bench stacks`, for suggestions.
    static let benchOptions = ["--count", "--plot", "--only"]

    private static func parseBench(_ arguments: [String]) throws(InvocationError) -> Invocation {
        guard let experiment = arguments.first, experiment == "stacks" else {
            let usage = "Usage: " + Usage.benchStacks
            guard let named = arguments.first, !named.hasPrefix("-") else {
                throw InvocationError(message: "'bench' needs the experiment to run first: 'bench stacks'", hint: usage)
            }
            let suggestion = named.closest(in: ["stacks"]).map { "Did you mean '\($0)'? " } ?? ""
            throw InvocationError(message: "unknown experiment '\(named)' for 'bench' (there is one: 'bench stacks')",
                                  hint: suggestion + usage)
        }
        var count = 300_000, plot: String?, only: String?
        try readOptions(Array(arguments.dropFirst()), command: "bench stacks") { (name, takeValue) throws(InvocationError) in
            switch name {
            case "--count":
                let text = try takeValue()
                guard let value = Int(text), value > 0 else {
                    throw InvocationError(message: "'--count' needs a whole number > 0, not '\(text)'")
                }
                count = value
            case "--plot":
                let text = try takeValue()
                guard !text.isEmpty else { throw InvocationError(message: "'--plot' needs a file path") }
                plot = text
            case "--only":
                let text = try takeValue()
                guard ["I", "II", "III", "IV"].contains(text) else {
                    throw InvocationError(message: "'--only' takes a stack's numeral (I, II, III or IV), not '\(text)'")
                }
                only = text
            default:
                throw unknownOption(name, among: benchOptions, command: "bench stacks")
            }
        }
        return Invocation(action: .benchStacks(count: count, plot: plot, only: only))
    }

    /// The subcommands of `exercise`, for suggestions.
    static let exerciseCommands = ["list", "check", "hint"]

    /// Reads `list`, `check N` or `hint N` (N a whole number from 1; `01` is 1).
    private static func parseExercise(_ arguments: [String]) throws(InvocationError) -> ExerciseRequest {
        let usage = "Usage: recipes exercise list | check N | hint N"
        guard let command = arguments.first else { return .list }
        switch command {
        case "list":
            guard arguments.count == 1 else {
                throw InvocationError(message: "unexpected argument '\(arguments[1])' for 'exercise list'", hint: usage)
            }
            return .list
        case "check", "hint":
            guard arguments.count >= 2 else {
                throw InvocationError(message: "'exercise \(command)' needs an exercise number, such as 'recipes exercise \(command) 1'",
                                      hint: "'recipes exercise list' shows the exercises.")
            }
            guard let number = Int(arguments[1]), number >= 1 else {
                throw InvocationError(message: "'exercise \(command)' needs an exercise number from 1, not '\(arguments[1])'",
                                      hint: "'recipes exercise list' shows the exercises.")
            }
            guard arguments.count == 2 else {
                throw InvocationError(message: "unexpected argument '\(arguments[2])' for 'exercise \(command)'", hint: usage)
            }
            return command == "check" ? .check(number) : .hint(number)
        default:
            let suggestion = command.closest(in: exerciseCommands).map { "Did you mean '\($0)'? " } ?? ""
            throw InvocationError(message: "unknown exercise command '\(command)'", hint: suggestion + usage)
        }
    }

    /// Reads the `--name VALUE` and `--name=VALUE` options of a subcommand, handing each
    /// name to `handle` with a function that takes its value.
    private static func readOptions(
        _ arguments: [String], command: String,
        _ handle: (_ name: String, _ takeValue: () throws(InvocationError) -> String) throws(InvocationError) -> Void
    ) throws(InvocationError) {
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            guard argument.hasPrefix("-"), !reader.isPastSeparator else {
                throw InvocationError(message: "unexpected argument '\(argument)' for '\(command)'")
            }
            let name = String(argument.prefix { $0 != "=" })
            let inline = argument.contains("=") ? String(argument.drop { $0 != "=" }.dropFirst()) : nil
            try handle(name) { () throws(InvocationError) -> String in
                if let inline { return inline }
                return try reader.value(for: name)
            }
        }
    }

    private static func unknownOption(_ name: String, among options: [String],
                                      command: String? = nil) -> InvocationError {
        let scope = command.map { " for '\($0)'" } ?? ""
        let help = command.map { "recipes \($0) --help" } ?? "recipes --help"
        if let suggestion = name.closest(in: options), suggestion.count > 2 {
            return InvocationError(message: "unknown option '\(name)'\(scope)",
                                   hint: "Did you mean '\(suggestion)'? See '\(help)'.")
        }
        return InvocationError(message: "unknown option '\(name)'\(scope)", hint: "See '\(help)'.")
    }
}
