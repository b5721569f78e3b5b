import Foundation
import Testing

/// The interactive shell in a real terminal (tmux): editing, history, Tab, Ctrl-C, Ctrl-D.
@Suite("recipes in a terminal", .enabled(if: TmuxTerminal.isAvailable,
                                          "tmux is not installed: the terminal tests are skipped"))
struct TerminalTests {
    let home: TemporaryDirectory
    let terminal: TmuxTerminal

    init() throws {
        home = try TemporaryDirectory()
        terminal = try TmuxTerminal(home: home.url)
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
        terminal.type(line)
        terminal.press("Enter")
        try await terminal.waitFor("'\(output)'") { $0.contains("\n\(output)\n") }
    }

    @Test("Line editing: Left arrow, insertion, and Backspace over a two-byte é")
    func lineEditing() async throws {
        try await waitForPrompt()
        terminal.type("echo abc")
        terminal.press("Left", "Left")
        terminal.type("X")
        terminal.press("Enter")
        try await terminal.waitFor("aXbc") { $0.contains("\naXbc\n") }
        terminal.type("echo café")
        terminal.press("BSpace")
        terminal.type("e, crème")
        terminal.press("Enter")
        try await terminal.waitFor("cafe, crème") { $0.contains("\ncafe, crème\n") }
    }

    @Test("History is saved and recalled with Up in a fresh process")
    func history() async throws {
        try await waitForPrompt()
        try await run("echo remembered", expecting: "remembered")
        terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let historyFile = home.url.appendingPathComponent(".local/share/recipes/history")
        #expect(try String(contentsOf: historyFile, encoding: .utf8).contains("echo\\040remembered"))

        let second = try TmuxTerminal(home: home.url)
        try await second.waitFor("the prompt") { $0.contains("recipes>") }
        second.press("Up")
        try await second.waitFor("the recalled line") { $0.contains("recipes> echo remembered") }
        second.press("Enter")
        try await second.waitFor("its output") { $0.contains("\nremembered\n") }
    }

    @Test("Tab completes a unique prefix; a second Tab lists the candidates")
    func completion() async throws {
        try await waitForPrompt()
        terminal.type("ec")
        terminal.press("Tab")
        try await terminal.waitFor("'echo' completed") { $0.contains("recipes> echo") }
        terminal.type("tabbed")  // after the space that completing a unique word adds
        terminal.press("Enter")
        try await terminal.waitFor("its output") { $0.contains("\ntabbed\n") }
        terminal.type(".")
        terminal.press("Tab")
        terminal.press("Tab")
        try await terminal.waitFor("the listing") { $0.contains(".exit  .quit  .read") }
    }

    @Test("Ctrl-C cancels a running command and the shell goes on")
    func interruptCommand() async throws {
        try await waitForPrompt()
        terminal.type("sleep 30")
        terminal.press("Enter")
        try await terminal.waitFor("the command to start") { $0.contains("recipes> sleep 30\n") }
        try await Task.sleep(for: .milliseconds(300))
        let pressed = ContinuousClock.now
        terminal.press("C-c")
        try await terminal.waitFor("'interrupted'") { $0.contains("error: interrupted") }
        #expect(ContinuousClock.now - pressed < .seconds(5))
        try await run("echo still alive", expecting: "still alive")
    }

    @Test("Ctrl-C at the prompt discards the half-typed line")
    func interruptLine() async throws {
        try await waitForPrompt()
        terminal.type("half typed")
        terminal.press("C-c")
        try await terminal.waitFor("^C") { $0.contains("half typed^C") }
        try await run("echo fresh", expecting: "fresh")
        #expect(!terminal.screen().contains("unknown command"))
    }

    @Test("Ctrl-D on an empty line quits with status 0")
    func endOfInput() async throws {
        try await waitForPrompt()
        terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test("Quitting with unsaved changes asks first, and stays unless confirmed")
    func unsavedChanges() async throws {
        try await waitForPrompt()
        terminal.type("dirty")
        terminal.press("Enter")
        try await waitForPrompt("recipes*> ")
        terminal.press("C-d")
        try await terminal.waitFor("the question") { $0.contains("Discard unsaved changes? [y/N]") }
        terminal.type("n")
        terminal.press("Enter")
        try await waitForPrompt("recipes*> ")
        terminal.type(".quit")
        terminal.press("Enter")
        try await terminal.waitFor("the question again") {
            $0.components(separatedBy: "Discard unsaved changes? [y/N]").count == 3
        }
        terminal.type("y")
        terminal.press("Enter")
        #expect(try await terminal.waitForExit() == 0)
        #expect(terminal.screen().contains("Rolled back unsaved changes."))
    }
}
