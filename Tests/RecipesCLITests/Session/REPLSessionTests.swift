import Foundation
import Synchronization
import Testing
@testable import recipes

/// The session driven in-process, with captured output and a private Ctrl-C counter.
@MainActor
@Suite("REPLSession")
struct REPLSessionTests {
    let output = CapturedOutput()
    let interrupts = InterruptCounter()

    func makeSession(bail: Bool = false, handler: EchoHandler = EchoHandler()) -> REPLSession<EchoHandler> {
        REPLSession(handler: handler, output: output, options: SessionOptions(bailsOnError: bail),
                    interrupts: interrupts)
    }

    @Test("-c and -f steps run in the order given; errors name -c:N and file:line")
    func batchOrderAndLocations() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("""
            -- a comment
            # another

            echo from script
              fail in script
            echo after failure
            """, to: "steps.rec")
        let status = await makeSession().runBatch(
            [.command("echo first"), .script(path: script), .command("fail second"), .command("echo last")])
        #expect(status == 1)
        #expect(output.merged == """
            first
            from script
            \(script):5: error: in script
            after failure
            -c:2: error: second
            last

            """)
    }

    @Test("--bail stops at the first failure, inside scripts too")
    func bail() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("echo one\nfail two\necho three\n", to: "s.rec")
        let status = await makeSession(bail: true).runBatch([.script(path: script), .command("echo never")])
        #expect(status == 1)
        #expect(output.merged == "one\n\(script):2: error: two\n")
    }

    @Test("A missing script is one failure naming its path, and the run goes on")
    func missingScript() async {
        let status = await makeSession().runBatch([.script(path: "/no/such.rec"), .command("echo next")])
        #expect(status == 1)
        #expect(output.text(of: .standardError)
            == "error: cannot open script '/no/such.rec': No such file or directory\n")
        #expect(output.text(of: .standardOutput) == "next\n")
    }

    @Test(".read runs a nested script with its own locations; .quit inside it ends the run")
    func nestedScript() async throws {
        let directory = try TemporaryDirectory()
        let inner = try directory.write("echo inner\nfail inner failure\n.quit\necho unreachable\n", to: "inner.rec")
        let outer = try directory.write("echo outer\n.read \(inner)\necho not reached\n", to: "outer.rec")
        let status = await makeSession().runBatch([.script(path: outer), .command("echo not reached either")])
        #expect(status == 1)
        #expect(output.merged == "outer\ninner\n\(inner):2: error: inner failure\n")
    }

    @Test("A script that reads itself is refused at once: none of its commands runs twice")
    func recursion() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("loop.rec").path
        try directory.write("echo once\n.read \(path)\n", to: "loop.rec")
        let status = await makeSession().runBatch([.script(path: path)])
        #expect(status == 1)
        #expect(output.merged == """
            once
            \(path):2: error: '\(path)' is already being read (\(path) → \(path)): a script cannot read itself

            """)
    }

    @Test("Two scripts that read each other are refused at the second reading, however the path is spelled")
    func mutualRecursion() async throws {
        let directory = try TemporaryDirectory()
        let base = directory.url.path
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("sub"), withIntermediateDirectories: false)
        let second = "\(base)/sub/../second.rec", again = "\(base)/./first.rec"
        let first = try directory.write("echo first\n.read \(second)\n", to: "first.rec")
        try directory.write("echo second\n.read \(again)\n", to: "second.rec")
        let status = await makeSession().runBatch([.script(path: first)])
        #expect(status == 1)
        #expect(output.merged == """
            first
            second
            \(second):2: error: '\(again)' is already being read (\(first) → \(second) → \(again)): a script cannot read itself

            """)
    }

    @Test("Unsaved changes are rolled back at the end of a batch run, and the shell says so")
    func rollbackAtEnd() async {
        let handler = EchoHandler()
        let status = await makeSession(handler: handler).runBatch([.command("dirty"), .command("echo done")])
        #expect(status == 0)
        #expect(output.merged == "done\nRolled back unsaved changes.\n")
        #expect(!handler.hasUnsavedChanges)
    }

    @Test("Notes are printed after the output of the command that follows them")
    func deferredNotes() async {
        let session = makeSession()
        session.notes.post("[import #1] done")
        _ = await session.runBatch([.command("echo result")])
        #expect(output.merged == "result\n[import #1] done\n")
    }

    @Test("Ctrl-C cancels the running command and stops a batch run with status 130")
    func interrupt() async {
        let session = makeSession()
        // A plain thread presses Ctrl-C every 50 ms until the run ends: it needs no free
        // thread of Swift's cooperative pool, and it does not matter when the command starts.
        let presser = RepeatingInterrupt(interrupts)
        let status = await session.runBatch([.command("sleep 600"), .command("echo never")])
        presser.stop()
        #expect(status == 130)
        #expect(output.merged == "-c:1: error: interrupted\n")
    }

    @Test("At a terminal, Ctrl-C pressed after Enter but before the command started still stops it")
    func interruptBeforeTheCommandStarts() async {
        let session = makeSession()
        session.mode = .interactive
        let atRead = interrupts.count
        interrupts.raise()  // the session was busy between reading the line and running it
        #expect(await session.execute("sleep 2", at: nil, interruptsAtRead: atRead) == .interrupted)
        #expect(output.merged == "error: interrupted\n")
    }

    @Test("The input thread records the Ctrl-C count as each read ends")
    func inputThreadRecordsInterrupts() async {
        interrupts.raise()
        interrupts.raise()
        let events = InputThread.start(prompt: "> ", interrupts: interrupts) {
            ScriptedEditor([.line("echo hi")], prompts: PromptLog())
        }
        for await event in events {
            #expect(event.interruptsAtRead == 2)
            event.ack.stop()
        }
    }

    @Test("Errors render their description; CancellationError reads as interrupted")
    func messages() {
        #expect(REPLSession<EchoHandler>.message(for: CommandError("boom")) == "boom")
        #expect(REPLSession<EchoHandler>.message(for: CancellationError()) == "interrupted")
    }

    @Test("A Foundation file error no command worded reads as its path and the system's reason")
    func fileErrorMessages() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("x", to: "file")
        let error = #expect(throws: (any Error).self) {
            try FileManager.default.createDirectory(atPath: file + "/sub", withIntermediateDirectories: true)
        }
        #expect(REPLSession<EchoHandler>.message(for: try #require(error)) == "\(file)/sub: Not a directory")
        let made = CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: "shelf", NSUnderlyingErrorKey: POSIXError(.EISDIR)])
        #expect(REPLSession<EchoHandler>.message(for: made) == "shelf: it is a directory")
    }

    @Test("Comment and blank lines are skipped", arguments: ["", "   ", "-- x", "# x", "  -- x", "\t#x"])
    func comments(line: String) { #expect(ScriptFile.isComment(line)) }

    @Test("Ordinary lines are not comments", arguments: ["echo -- x", "echo # x", "-x", ".read"])
    func notComments(line: String) { #expect(!ScriptFile.isComment(line)) }
}

/// Raises an interrupt counter every 50 ms from a thread of its own until stopped, from the
/// moment `isReady` first says so (at once by default).
final class RepeatingInterrupt: Sendable {
    private let isStopped = Atomic<Bool>(false)

    init(_ counter: InterruptCounter, once isReady: @escaping @Sendable () -> Bool = { true }) {
        Thread { [self] in
            while !isStopped.load(ordering: .sequentiallyConsistent) {
                if isReady() { counter.raise() }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }.start()
    }

    func stop() { isStopped.store(true, ordering: .sequentiallyConsistent) }
}
