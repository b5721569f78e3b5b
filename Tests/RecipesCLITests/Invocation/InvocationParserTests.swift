import Foundation
import Testing
@testable import recipes

/// Parsing of the `recipes` command line, without running anything.
@Suite("InvocationParser")
struct InvocationParserTests {
    @Test("No arguments open the interactive shell on the default store")
    func empty() throws {
        #expect(try InvocationParser.parse([]) == Invocation())
    }

    @Test("-c and -f keep the order they were given in, with every flag and the store")
    func orderedSteps() throws {
        let invocation = try InvocationParser.parse(
            ["shop.sqlite", "-c", "echo a", "-f", "one.rec", "--bail", "-cecho b",
             "--deterministic", "-ftwo.rec", "-c", "-- not an option"])
        var expected = Invocation(storePath: "shop.sqlite", isDeterministic: true, bailsOnError: true)
        expected.steps = [.command("echo a"), .script(path: "one.rec"), .command("echo b"),
                          .script(path: "two.rec"), .command("-- not an option")]
        #expect(invocation == expected)
    }

    @Test("--memory sets an in-memory store")
    func memory() throws {
        #expect(try InvocationParser.parse(["--memory"]) == Invocation(isInMemory: true))
    }

    @Test("-- ends the options")
    func separator() throws {
        #expect(try InvocationParser.parse(["--", "-odd.sqlite"]).storePath == "-odd.sqlite")
    }

    @Test("-h and --help win over everything else", arguments: [
        ["-h"], ["--help"], ["store", "--bogus", "--help"], ["generate", "--help"],
    ])
    func help(arguments: [String]) throws {
        #expect(try InvocationParser.parse(arguments).action == .help)
    }

    @Test("bench names the experiment it does not know, or says that one is missing", arguments: [
        (["bench", "stack"], "unknown experiment 'stack' for 'bench' (there is one: 'bench stacks')",
         "Did you mean 'stacks'? Usage: recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]"),
        (["bench", "sprint"], "unknown experiment 'sprint' for 'bench' (there is one: 'bench stacks')",
         "Usage: recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]"),
        (["bench"], "'bench' needs the experiment to run first: 'bench stacks'",
         "Usage: recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]"),
        (["bench", "--count", "5"], "'bench' needs the experiment to run first: 'bench stacks'",
         "Usage: recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]"),
    ])
    func benchExperiment(arguments: [String], message: String, hint: String) throws {
        let error = try #require(throws: InvocationError.self) { try InvocationParser.parse(arguments) }
        #expect(error.message == message)
        #expect(error.hint == hint)
    }

    @Test("generate takes --count, --seed and --output, in either spelling")
    func generate() throws {
        #expect(try InvocationParser.parse(["generate", "--count", "500", "--seed=7", "--output", "x.json"])
            .action == .generate(count: 500, seed: 7, output: "x.json"))
        #expect(try InvocationParser.parse(["generate", "--output=x", "--count=3"])
            .action == .generate(count: 3, seed: 0, output: "x"))
    }

    @Test("exercise takes list, check N or hint N; a bare 'exercise' lists")
    func exercise() throws {
        #expect(try InvocationParser.parse(["exercise"]).action == .exercise(.list))
        #expect(try InvocationParser.parse(["exercise", "list"]).action == .exercise(.list))
        #expect(try InvocationParser.parse(["exercise", "check", "3"]).action == .exercise(.check(3)))
        #expect(try InvocationParser.parse(["exercise", "hint", "02"]).action == .exercise(.hint(2)))
    }

    @Test("Bad exercise commands name the problem", arguments: [
        (["exercise", "chek", "1"], "unknown exercise command 'chek'",
         "Did you mean 'check'? Usage: recipes exercise list | check N | hint N"),
        (["exercise", "check"], "'exercise check' needs an exercise number, such as 'recipes exercise check 1'",
         "'recipes exercise list' shows the exercises."),
        (["exercise", "hint", "0"], "'exercise hint' needs an exercise number from 1, not '0'",
         "'recipes exercise list' shows the exercises."),
        (["exercise", "check", "1", "2"], "unexpected argument '2' for 'exercise check'",
         "Usage: recipes exercise list | check N | hint N"),
        (["exercise", "list", "all"], "unexpected argument 'all' for 'exercise list'",
         "Usage: recipes exercise list | check N | hint N"),
    ])
    func refusedExercise(arguments: [String], message: String, hint: String) {
        #expect(throws: InvocationError(message: message, hint: hint)) {
            try InvocationParser.parse(arguments)
        }
    }

    @Test("Bad command lines are refused with a clear message", arguments: [
        (["--bial"], "unknown option '--bial'", "Did you mean '--bail'? See 'recipes --help'."),
        (["--frobnicate"], "unknown option '--frobnicate'", "See 'recipes --help'."),
        (["-c"], "option '-c' needs a COMMAND", "See 'recipes --help'."),
        (["-f"], "option '-f' needs a SCRIPT path", "See 'recipes --help'."),
        (["--tutorial"], "option '--tutorial' needs a tutorial FILE (Markdown)", "See 'recipes --help'."),
        (["generate", "--output", "o", "--count"], "option '--count' needs a whole number", "See 'recipes --help'."),
        (["bench", "stacks", "--plot"], "option '--plot' needs a FILE.svg path", "See 'recipes --help'."),
        (["bench", "stacks", "--only"], "option '--only' needs a stack's numeral (I, II, III or IV)", "See 'recipes --help'."),
        (["--bail=yes"], "option '--bail' takes no value", "See 'recipes --help'."),
        (["a.sqlite", "b.sqlite"], "unexpected argument 'b.sqlite': the store is already 'a.sqlite'",
         "Only one STORE can be opened. See 'recipes --help'."),
        (["a.sqlite", "--memory"], "'--memory' and the store path 'a.sqlite' cannot be used together",
         "Give either a STORE file or --memory. See 'recipes --help'."),
        (["generate", "--count", "x", "--output", "o"], "'--count' needs a whole number ≥ 0, not 'x'",
         "See 'recipes --help'."),
        (["generate", "--count", "99999999999999999999", "--output", "o"],
         "'--count' 99999999999999999999 is too large: at most 9223372036854775807", "See 'recipes --help'."),
        (["generate", "--count", "3", "--seed", "18446744073709551616", "--output", "o"],
         "'--seed' 18446744073709551616 is too large: at most 18446744073709551615", "See 'recipes --help'."),
        (["generate", "--count", "2", "--count", "3", "--output", "o"], "'--count' is given twice; give it once",
         "See 'recipes --help'."),
        (["generate", "--count", "3", "--output", "a", "--output", "b"], "'--output' is given twice; give it once",
         "See 'recipes --help'."),
        (["generate", "--count", "3"], "'generate' needs '--output FILE'", "See 'recipes --help'."),
        (["generate", "--output", "o"], "'generate' needs '--count N'", "See 'recipes --help'."),
        (["generate", "--cont", "3"], "unknown option '--cont' for 'generate'",
         "Did you mean '--count'? See 'recipes generate --help'."),
    ])
    func refused(arguments: [String], message: String, hint: String) {
        #expect(throws: InvocationError(message: message, hint: hint)) {
            try InvocationParser.parse(arguments)
        }
    }

    @Test("Each command's usage line names every option its parser takes, and each option it names is taken", arguments: [
        ([String](), ["recipes [STORE]", "recipes tutorial"], InvocationParser.shellOptions),
        (["generate"], ["recipes generate"], InvocationParser.generateOptions),
        (["bench", "stacks"], ["recipes bench stacks"], InvocationParser.benchOptions),
    ])
    func usageLineNamesEveryOption(command: [String], usagePrefixes: [String], options: [String]) {
        // The usage lines: the first paragraph of the help text.
        let usage = Usage.text.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        let lines = usage.filter { line in usagePrefixes.contains { line.hasPrefix($0) } }
        #expect(lines.count == usagePrefixes.count, "\(usage)")
        let named = Set(lines.flatMap { $0.split { " []()".contains($0) }.filter { $0.hasPrefix("-") }.map(String.init) })
        let taken = Set(options).subtracting(["-h", "--help"])  // every command's, in the Options paragraph
        #expect(named == taken, "in the usage line only: \(named.subtracting(taken)); taken, not in it: \(taken.subtracting(named))")
        for option in named.sorted() {
            do {
                _ = try InvocationParser.parse(command + [option, "1"])
            } catch {
                #expect(!error.message.hasPrefix("unknown option"), "\(option): \(error.message)")
            }
        }
    }

    @Test("Every line of the usage text fits 88 columns, as its paragraphs are wrapped")
    func usageLinesFit() {
        let long = Usage.text.split(separator: "\n").filter { $0.count > 88 }
        #expect(long.isEmpty, "\(long)")
    }
}
