import Testing

/// The built `recipes` binary run with `-c`, `-f` and piped standard input.
@Suite("recipes without a terminal")
struct BatchModeTests {
    @Test("-c commands run in the order given, then the program exits 0")
    func commandsInOrder() async throws {
        let run = try await RecipesBinary.run(["-c", "echo one", "-c", "echo two", "-c", "echo three"])
        #expect(run.standardOutput == "one\ntwo\nthree\n")
        #expect(run.standardError == "")
        #expect(run.status == 0)
    }

    @Test("-c and -f interleave in order; errors name -c:N and file:line; the status is 1")
    func interleavedWithLocations() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("-- setup\necho script line 2\n\nfail broken at 4\n# done\n", to: "setup.rec")
        let run = try await RecipesBinary.run(
            ["-c", "echo before", "-f", "setup.rec", "-c", "fail second command", "-c", "echo after"],
            in: directory.url)
        #expect(run.standardOutput == "before\nscript line 2\nafter\n")
        #expect(run.standardError == "setup.rec:4: error: broken at 4\n-c:2: error: second command\n")
        #expect(run.status == 1)
    }

    @Test("--bail stops at the first error")
    func bail() async throws {
        let run = try await RecipesBinary.run(["--bail", "-c", "echo a", "-c", "fail b", "-c", "echo c"])
        #expect(run.standardOutput == "a\n")
        #expect(run.standardError == "-c:2: error: b\n")
        #expect(run.status == 1)
    }

    @Test("A missing script names its path and exits 1")
    func missingScript() async throws {
        let run = try await RecipesBinary.run(["-f", "missing.rec"])
        #expect(run.standardError == "error: cannot open script 'missing.rec': No such file or directory\n")
        #expect(run.status == 1)
    }

    @Test("Piped standard input is read without prompts; a failure makes the status 1")
    func standardInput() async throws {
        let run = try await RecipesBinary.run([], input: "echo piped\n-- comment\nfail oops\necho still read\n")
        #expect(run.standardOutput == "piped\nstill read\n")
        #expect(run.standardError == "error: oops\n")
        #expect(run.status == 1)
    }

    @Test("Piped input stops at .quit, and with --bail at the first failure")
    func standardInputStops() async throws {
        let quit = try await RecipesBinary.run([], input: "echo a\n.quit\necho b\n")
        #expect(quit.standardOutput == "a\n" && quit.status == 0)
        let bail = try await RecipesBinary.run(["--bail"], input: "fail x\necho b\n")
        #expect(bail.standardOutput == "" && bail.standardError == "error: x\n" && bail.status == 1)
    }

    @Test("Unsaved changes are rolled back at the end of a non-interactive run, with a message",
          arguments: [(["-c", "dirty"], nil), ([], "dirty\n"), ([], "dirty\n.quit\n")] as [([String], String?)])
    func rollback(arguments: [String], input: String?) async throws {
        let run = try await RecipesBinary.run(arguments, input: input)
        #expect(run.standardError == "Rolled back unsaved changes.\n")
        #expect(run.status == 0)
    }

    @Test("UTF-8 passes through unchanged")
    func utf8() async throws {
        let run = try await RecipesBinary.run(["-c", "echo Crème brûlée, ça marche"])
        #expect(run.standardOutput == "Crème brûlée, ça marche\n")
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
