import Foundation
import Testing

/// The built `recipes` binary run with `-c`, `-f` and piped standard input.
@Suite("recipes without a terminal")
struct BatchModeTests {
    @Test("-c commands run in the order given, then the program exits 0")
    func commandsInOrder() async throws {
        let run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", "insert Chef name=A",
                                               "-c", "count Chef", "-c", "rollback"])
        #expect(run.standardOutput == "inserted Chef (unsaved; save to keep it)\n1\nRolled back 1 unsaved change.\n")
        #expect(run.standardError == "")
        #expect(run.status == 0)
    }

    @Test("-c and -f interleave in order; errors name -c:N and file:line; the status is 1")
    func interleavedWithLocations() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("-- setup\ncount Chef\n\ncount Nope\n# done\n", to: "setup.rec")
        let run = try await RecipesBinary.run(
            ["--memory", "-c", "count Chef", "-f", "setup.rec", "-c", "count Chefs", "-c", "count Cuisine"],
            in: directory.url)
        #expect(run.standardOutput == "0\n0\n0\n")
        #expect(run.standardError == "setup.rec:4: error: unknown entity 'Nope'\n-c:2: error: unknown entity 'Chefs'; did you mean 'Chef'?\n")
        #expect(run.status == 1)
    }

    @Test("--bail stops at the first error")
    func bail() async throws {
        let run = try await RecipesBinary.run(["--memory", "--bail", "-c", "count Chef", "-c", "count Nope", "-c", "count Cuisine"])
        #expect(run.standardOutput == "0\n")
        #expect(run.standardError == "-c:2: error: unknown entity 'Nope'\n")
        #expect(run.status == 1)
    }

    @Test("Output that cannot be written (a full disk) makes the status 1 and says so on standard error")
    func unwritableOutput() async throws {
        let scratch = try TemporaryDirectory()
        let errorPath = scratch.url.appendingPathComponent("stderr").path
        let pid = try ChildProcess.spawn(RecipesBinary.path, arguments: ["--memory", "-c", "count Chef"],
                                         environment: RecipesBinary.environment(home: scratch.url),
                                         directory: scratch.url.path, input: .file("/dev/null"),
                                         output: .file("/dev/full"), error: .file(errorPath))
        let ending = try await ChildProcess.termination(of: pid, before: HangLimit.deadline(after: .seconds(600)))
        if ending == nil { kill(pid, SIGKILL) }
        let error = try String(contentsOfFile: errorPath, encoding: .utf8)
        #expect(ending?.status == 1, "\(error)")
        #expect(error == "recipes: error: cannot write to standard output (No space left on device); the output is incomplete\n")
    }

    @Test("A missing script names its path and exits 1")
    func missingScript() async throws {
        let run = try await RecipesBinary.run(["--memory", "-f", "missing.rec"])
        #expect(run.standardError == "error: cannot open script 'missing.rec': No such file or directory\n")
        #expect(run.status == 1)
    }

    @Test("Piped standard input is read without prompts; a failure makes the status 1")
    func standardInput() async throws {
        let run = try await RecipesBinary.run(["--memory"], input: "count Chef\n-- comment\ncount Nope\ncount Cuisine\n")
        #expect(run.standardOutput == "0\n0\n")
        #expect(run.standardError == "error: unknown entity 'Nope'\n")
        #expect(run.status == 1)
    }

    @Test("A byte-order mark at the start of a script or of piped input is not part of the first command")
    func byteOrderMark() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("\u{FEFF}count Chef\r\ncount Cuisine\r\n", to: "windows.rec")
        let script = try await RecipesBinary.run(["--memory", "-f", "windows.rec", "-c", ".read windows.rec"],
                                                 in: directory.url)
        #expect(script.standardOutput == "0\n0\n0\n0\n" && script.standardError == "" && script.status == 0,
                "\(script.standardError)")
        let piped = try await RecipesBinary.run(["--memory"], input: "\u{FEFF}count Chef\ncount Cuisine\n")
        #expect(piped.standardOutput == "0\n0\n" && piped.standardError == "" && piped.status == 0, "\(piped.standardError)")
    }

    @Test("Piped input stops at .quit, and with --bail at the first failure")
    func standardInputStops() async throws {
        let quit = try await RecipesBinary.run(["--memory"], input: "count Chef\n.quit\ncount Cuisine\n")
        #expect(quit.standardOutput == "0\n" && quit.status == 0)
        let bail = try await RecipesBinary.run(["--memory", "--bail"], input: "count Nope\ncount Chef\n")
        #expect(bail.standardOutput == "" && bail.standardError == "error: unknown entity 'Nope'\n" && bail.status == 1)
    }

    @Test("Unsaved changes are rolled back at the end of a non-interactive run, with a message",
          arguments: [(["-c", "insert Chef name=A"], nil), ([], "insert Chef name=A\n"),
                      ([], "insert Chef name=A\n.quit\n")] as [([String], String?)])
    func rollback(arguments: [String], input: String?) async throws {
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + arguments, input: input)
        #expect(run.standardError == "Rolled back 1 unsaved change.\n")
        #expect(run.status == 0)
    }

    @Test("UTF-8 passes through unchanged")
    func utf8() async throws {
        let run = try await RecipesBinary.run(["--memory", "-c", "insert Chef name='Crème brûlée, ça marche'",
                                               "-c", ".mode csv", "-c", "fetch Chef"])
        #expect(run.standardOutput.contains("\"Crème brûlée, ça marche\""))
    }

    @Test("Unknown options exit 2 with a clear error")
    func unknownOption() async throws {
        let run = try await RecipesBinary.run(["--bial"])
        #expect(run.standardError == "recipes: error: unknown option '--bial'\nDid you mean '--bail'? See 'recipes --help'.\n")
        #expect(run.standardOutput == "")
        #expect(run.status == 2)
    }

    @Test("--help prints the usage and exits 0")
    func help() async throws {
        let run = try await RecipesBinary.run(["--help"])
        #expect(run.standardOutput.hasPrefix(
            "Usage:\n  recipes [STORE] [--memory] [--deterministic] [--bail] [-c COMMAND]... [-f SCRIPT]...\n"))
        #expect(run.status == 0)
    }
}
