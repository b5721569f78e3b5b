import Foundation
import Testing

/// Ctrl-C in a real terminal stops every kind of long command, and the shell goes on.
///
/// Each test starts a command that would run for many seconds, presses Ctrl-C once it
/// runs, and waits (with a generous deadline) for `error: interrupted` and for the next
/// command's answer. Starting the command, the wait for it and the press run together off
/// the cooperative pool (``TmuxTerminal/press(_:after:when:settle:description:timeout:)``),
/// which the other tests can keep busy for longer than the command runs. How long the stop
/// took is printed, never asserted: the machine may be busy with other tests.
@Suite("Ctrl-C in a terminal")
struct InterruptTests {
    let home: TemporaryDirectory

    init() throws { home = try TemporaryDirectory() }

    /// A predicate that takes about two milliseconds a row over the 7,413 sample ingredients
    /// (a backtracking regular expression): seconds in all, but each row is short.
    static let slowPredicate = "name MATCHES '(.*[aeiou]){5}q'"

    /// Opens the shell on the sample catalogue, runs `command`, presses Ctrl-C while it
    /// runs, and checks that the next command answers.
    func interrupt(_ command: String, in terminal: TmuxTerminal, settle: Duration = .milliseconds(300)) async throws {
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        let (before, pressed) = try await terminal.press(
            "C-c", after: .line(command), when: { $0.contains(command + "\n") }, settle: settle,
            description: "the command to start")
        #expect(!before.contains("error: interrupted"))
        try await terminal.waitFor("'interrupted'") { $0.contains("error: interrupted") }
        print("Ctrl-C stopped '\(command)' in \(ContinuousClock.now - pressed) (measured through tmux polling)")
        await terminal.type("count Chef")
        await terminal.press("Enter")
        try await terminal.waitFor("the next command's answer") { $0.contains("recipes> count Chef\n30\n") }
    }

    @Test("Ctrl-C stops a slow fetch; the shell answers the next command")
    func slowFetch() async throws {
        let terminal = try await TmuxTerminal(home: home.url)
        try await interrupt("fetch Ingredient where \(Self.slowPredicate)", in: terminal)
    }

    @Test("Ctrl-C stops a slow count")
    func slowCount() async throws {
        let terminal = try await TmuxTerminal(home: home.url)
        try await interrupt("count Ingredient where \(Self.slowPredicate)", in: terminal)
    }

    @Test("Ctrl-C stops a demo while it builds its catalogue, and the demo's files are removed")
    func demo() async throws {
        let temporary = try TemporaryDirectory()
        let terminal = try await TmuxTerminal(home: home.url, environment: ["TMPDIR": temporary.url.path])
        try await interrupt("demo search --size 300000", in: terminal, settle: .seconds(1))
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
        #expect(left.filter { $0.hasPrefix("recipes-demo-") }.isEmpty, "left behind: \(left)")
    }

    @Test("Ctrl-C stops the generator with status 130 and leaves no half-written file")
    func generate() async throws {
        let output = home.url.appendingPathComponent("big.jsonl").path
        let directory = home.url
        /// The files beside the output that the generator writes before renaming one into place.
        @Sendable func partials() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasPrefix(".big.jsonl.") && $0.hasSuffix(".tmp") }
        }
        // Two million recipes are about a minute of writing in a debug build and 2 GB. The
        // tmux server outlives a test process that is killed, and its generator with it:
        // fifty million once filled the disk of a machine that ran these tests.
        let terminal = try await TmuxTerminal(
            arguments: ["generate", "--count", "2000000", "--seed", "1", "--output", output], home: home.url, held: true)
        try await terminal.press("C-c", after: .release, when: { _ in
            partials().contains { name in
                ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size]
                    as? Int) ?? 0) > 0
            }
        }, description: "the generator to start writing")
        #expect(try await terminal.waitForExit() == 130)
        #expect(await terminal.screen().contains("error: interrupted"))
        #expect(!FileManager.default.fileExists(atPath: output), "the output appears only when it is complete")
        #expect(partials().isEmpty)
    }
}
