import Foundation
import Testing

/// The interactive shell in a real terminal (tmux): editing, history, Tab, Ctrl-C, Ctrl-D.
@Suite("recipes in a terminal")
struct TerminalTests {
    let home: TemporaryDirectory
    let terminal: TmuxTerminal

    init() async throws {
        home = try TemporaryDirectory()
        terminal = try await TmuxTerminal(arguments: ["--memory"], home: home.url)
    }

    /// Waits for the prompt at the start of the last non-empty line.
    func waitForPrompt(_ prompt: String = "recipes> ") async throws {
        try await terminal.waitFor("a fresh '\(prompt)'") { screen in
            screen.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) }
                == prompt.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Types `line`, presses Enter, and waits for `output` on a line of its own.
    func run(_ line: String, expecting output: String) async throws {
        await terminal.type(line)
        await terminal.press("Enter")
        try await terminal.waitFor("'\(output)'") { $0.contains("\n\(output)\n") }
    }

    @Test("Line editing: Left arrow, insertion, and Backspace over a two-byte é")
    func lineEditing() async throws {
        try await waitForPrompt()
        await terminal.type("count Cef")
        await terminal.press("Left", "Left")
        await terminal.type("h")
        await terminal.press("Enter")
        try await terminal.waitFor("the count") { $0.contains("recipes> count Chef\n0\n") }
        await terminal.type("insert Chef name=Zoéé")
        await terminal.press("BSpace")
        await terminal.press("Enter")
        try await waitForPrompt("recipes*> ")
        try await run("count Chef where name == 'Zoé'", expecting: "1")
    }

    @Test("History is saved and recalled with Up in a fresh process")
    func history() async throws {
        try await waitForPrompt()
        try await run("count Cuisine where name == 'remembered'", expecting: "0")
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let historyFile = home.url.appendingPathComponent(".local/share/recipes/history")
        #expect(try String(contentsOf: historyFile, encoding: .utf8).contains("remembered"))

        let second = try await TmuxTerminal(arguments: ["--memory"], home: home.url)
        try await second.waitFor("the prompt") { $0.contains("recipes>") }
        await second.press("Up")
        try await second.waitFor("the recalled line") { $0.contains("recipes> count Cuisine where name == 'remembered'") }
        await second.press("Enter")
        try await second.waitFor("its output") { $0.contains("\n0\n") }
    }

    @Test("Two shells at once both keep their lines in the history file")
    func historyOfTwoShells() async throws {
        try await waitForPrompt()
        let second = try await TmuxTerminal(arguments: ["--memory"], home: home.url)
        try await second.waitFor("the prompt") { $0.contains("recipes>") }
        try await run("count Cuisine where name == 'alpha'", expecting: "0")
        await second.type("count Chef where name == 'beta'")
        await second.press("Enter")
        try await second.waitFor("its output") { $0.contains("\n0\n") }
        try await run("count Recipe where name == 'gamma'", expecting: "0")
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        await second.press("C-d")
        #expect(try await second.waitForExit() == 0)
        let saved = try String(contentsOf: home.url.appendingPathComponent(".local/share/recipes/history"), encoding: .utf8)
        #expect(["'alpha'", "'beta'", "'gamma'"].allSatisfy(saved.contains), "\(saved)")
    }

    @Test("A line with a password in a URL is not saved in the history file")
    func historyKeepsNoPassword() async throws {
        try await waitForPrompt()
        await terminal.type(".open postgres://og:secret@127.0.0.1:1/kitchen")
        await terminal.press("Enter")
        try await terminal.waitFor("the refusal") { $0.contains("error: ") }
        try await run("count Cuisine where name == 'remembered'", expecting: "0")
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let saved = try String(contentsOf: home.url.appendingPathComponent(".local/share/recipes/history"), encoding: .utf8)
        #expect(saved.contains("remembered") && !saved.contains("secret"), "\(saved)")
    }

    @Test("Tab completes a unique prefix; a second Tab lists the candidates")
    func completion() async throws {
        try await waitForPrompt()
        await terminal.type("coun")
        await terminal.press("Tab")
        try await terminal.waitFor("'count' completed") { $0.contains("recipes> count") }
        await terminal.type("Cuisin")
        await terminal.press("Tab")
        try await terminal.waitFor("'Cuisine' completed") { $0.contains("recipes> count Cuisine") }
        await terminal.press("Enter")
        try await terminal.waitFor("its output") { $0.contains("\n0\n") }
        await terminal.type(".ex")
        await terminal.press("Tab")
        await terminal.press("Tab")
        try await terminal.waitFor("the listing") { $0.contains(".exit") && $0.contains(".explain") }
    }

    @Test("Tab completes the keys after a relationship and a dot, and file names after import")
    func completionOfPathsAndFiles() async throws {
        try await waitForPrompt()
        await terminal.type("fetch Recipe where chef.na")
        await terminal.press("Tab")
        try await terminal.waitFor("'chef.name' completed") { $0.contains("recipes> fetch Recipe where chef.name") }
        await terminal.press("C-u")
        await terminal.type("import SampleData/ingr")
        await terminal.press("Tab")
        try await terminal.waitFor("the file name completed") { $0.contains("recipes> import SampleData/ingredients.tsv") }
    }

    @Test("Tab quotes a file name with a space, rewriting the word typed, and the import reads it")
    func completionQuotesANameWithASpace() async throws {
        let folder = home.url.appendingPathComponent("My Recipes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let firstRecipe = try String(contentsOfFile: ShellCommandTests.sample, encoding: .utf8).prefix { $0 != "\n" }
        try Data((firstRecipe + "\n").utf8).write(to: folder.appendingPathComponent("week one.jsonl"))
        try await waitForPrompt()
        await terminal.type("import \(home.url.path)/My")
        await terminal.press("Tab")
        try await terminal.waitFor("the folder quoted") { $0.contains("recipes> import \"\(home.url.path)/My Recipes/") }
        await terminal.type("we")
        await terminal.press("Tab")
        try await terminal.waitFor("the file completed and the quote closed") {
            $0.contains("recipes> import \"\(home.url.path)/My Recipes/week one.jsonl\"")  // the screen drops the space after it
        }
        await terminal.press("Enter")
        try await terminal.waitFor("the import") { $0.contains("imported 1 recipe from week one.jsonl") }
    }

    @Test("Ctrl-C stops a running import after its batch; saved batches stay and the shell goes on")
    func interruptCommand() async throws {
        let file = home.url.appendingPathComponent("big.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", "30000", "--seed", "3", "--output", file])
        #expect(generated.status == 0)
        // The test must see the progress bar between its first saved batch and the end of
        // the file. On a loaded machine its task once did not run for the whole import
        // (13 s): then it tries again in a fresh shell, up to three times.
        var terminal = self.terminal
        for attempt in 1...3 {
            if attempt > 1 { terminal = try await TmuxTerminal(arguments: ["--memory"], home: home.url) }
            if try await interruptImport(of: file, in: terminal) { return }
        }
        Issue.record("the import of 30,000 recipes finished before Ctrl-C could be pressed, three times")
    }

    /// Starts importing `file` in `terminal`, presses Ctrl-C once the progress bar is past
    /// the first batch, and checks the shell stopped after a saved batch and goes on.
    /// Returns `false` when the import finished before the test saw it running.
    private func interruptImport(of file: String, in terminal: TmuxTerminal) async throws -> Bool {
        try await terminal.waitFor("the prompt") { $0.split(separator: "\n").last?.hasPrefix("recipes>") == true }
        await terminal.type("import \(file) --batch 500")
        await terminal.press("Enter")
        try await terminal.waitFor("the command to start") { $0.contains("--batch 500\n") }
        // Ctrl-C once the progress bar is past the first batch (which is then saved),
        // however long that takes on a busy machine.
        let running = try await terminal.waitFor("a saved batch") { screen in
            if screen.contains("imported 30000 recipes") { return true }
            guard let range = screen.range(of: #"import +[0-9,]+/"#, options: .regularExpression) else { return false }
            let done = screen[range].dropFirst("import".count).filter(\.isNumber)
            return (Int(String(done)) ?? 0) >= 1_000
        }
        if running.contains("imported 30000 recipes") { return false }
        await terminal.press("C-c")
        let stopped = try await terminal.waitFor("'interrupted'") {
            $0.contains("error: interrupted") || $0.contains("imported 30000 recipes")
        }
        if !stopped.contains("error: interrupted") { return false }
        #expect(await terminal.screen().contains("import stopped after line"))
        await terminal.type("count Recipe")
        await terminal.press("Enter")
        try await terminal.waitFor("a count") { screen in
            guard let line = screen.components(separatedBy: "recipes> count Recipe\n").last?.split(separator: "\n").first,
                  let count = Int(line) else { return false }
            return count > 0 && count < 30_000 && count % 500 == 0
        }
        return true
    }

    @Test("Ctrl-C at the prompt discards the half-typed line")
    func interruptLine() async throws {
        try await waitForPrompt()
        await terminal.type("half typed")
        // Ctrl-C makes the terminal flush input the editor has not read yet: press it only
        // once the line shows the text (on a loaded machine the text was once flushed unseen).
        try await terminal.waitFor("the typed text") { $0.contains("recipes> half typed") }
        await terminal.press("C-c")
        try await terminal.waitFor("^C") { $0.contains("half typed^C") }
        try await run("count Chef", expecting: "0")
        #expect(await !terminal.screen().contains("unknown command"))
    }

    @Test("Ctrl-Z at the prompt suspends the shell; fg brings back the line typed, still editable")
    func suspendAndResume() async throws {
        // A job-control shell in the pane, which runs recipes in a group of its own: the
        // system ignores SIGTSTP in a process group no such shell watches (the pane's own).
        /// The last line with text, without the spaces tmux trims anyway.
        @Sendable func lastLine(_ screen: String) -> String {
            screen.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        let bash = try await TmuxTerminal(executable: "bash", arguments: ["--norc", "--noprofile", "-i"], home: home.url,
                                          environment: ["PS1": "job-shell$ "])
        try await bash.waitFor("bash's prompt") { lastLine($0) == "job-shell$" }
        await bash.type("'\(RecipesBinary.path)' --memory")
        await bash.press("Enter")
        try await bash.waitFor("the prompt") { lastLine($0) == "recipes>" }
        await bash.type("count Chf")
        try await bash.waitFor("the typed text") { lastLine($0) == "recipes> count Chf" }
        await bash.press("C-z")
        try await bash.waitFor("the job stopped, and bash's prompt") { $0.contains("Stopped") && lastLine($0) == "job-shell$" }
        await bash.type("fg")
        await bash.press("Enter")
        try await bash.waitFor("the line again") { lastLine($0) == "recipes> count Chf" }
        await bash.press("Left")
        await bash.type("e")
        await bash.press("Enter")
        let screen = try await bash.waitFor("the count") { $0.contains("recipes> count Chef\n0\n") }
        #expect(!screen.contains("^["), "the edit mode came back: no key echoed as text\n\(screen)")
    }

    @Test("SIGTERM or SIGHUP at the prompt ends the shell by that signal and gives the terminal back as it was",
          arguments: [SIGTERM, SIGHUP])
    func terminatedAtThePrompt(signal: Int32) async throws {
        try await waitForPrompt()
        let editing = try await terminal.terminalModes()
        #expect(editing.contains("-icanon"), "the line editor reads key by key at the prompt: \(editing.sorted())")
        let program = try #require(await terminal.programID())
        kill(program, signal)
        #expect(try await terminal.waitForExit() == 128 + signal)
        let after = try await terminal.terminalModes()
        #expect(after.contains("icanon") && after.contains("echo") && !after.contains("-icanon"), "\(after.sorted())")
    }

    @Test("Ctrl-D on an empty line quits with status 0")
    func endOfInput() async throws {
        try await waitForPrompt()
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test("Quitting with unsaved changes asks first, and stays unless confirmed")
    func unsavedChanges() async throws {
        try await waitForPrompt()
        await terminal.type("insert Chef name=Ana")
        await terminal.press("Enter")
        try await waitForPrompt("recipes*> ")
        await terminal.press("C-d")
        try await terminal.waitFor("the question") { $0.contains("Discard unsaved changes? [y/N]") }
        await terminal.type("n")
        await terminal.press("Enter")
        try await waitForPrompt("recipes*> ")
        await terminal.type(".quit")
        await terminal.press("Enter")
        try await terminal.waitFor("the question again") {
            $0.components(separatedBy: "Discard unsaved changes? [y/N]").count == 3
        }
        await terminal.type("y")
        await terminal.press("Enter")
        #expect(try await terminal.waitForExit() == 0)
        #expect(await terminal.screen().contains("Rolled back 1 unsaved change."))
    }
}
