import Foundation
import Glibc

/// The `recipes` program: parses the arguments, then runs the generator or a shell session.
///
/// `main.swift` supplies the two pieces written elsewhere — the command layer
/// (`makeHandler`) and the generator (`generate`) — so this file is all the wiring:
///
/// ```swift
/// let status = await RecipesProgram.run(
///     arguments: Array(CommandLine.arguments.dropFirst()),
///     makeHandler: { invocation in try await RecipeCommands(invocation: invocation) },
///     generate: { count, seed, output in try CatalogGenerator(seed: seed).write(count, to: output) })
/// exit(status)
/// ```
///
/// Exit statuses: 0 success; 1 a command failed, a script or the store could not be
/// opened, or the generator failed; 2 a usage error; 130 Ctrl-C stopped a batch run or
/// the generator (which then removes its half-written file).
@MainActor enum RecipesProgram {
    /// Runs the program and returns its exit status.
    ///
    /// - Parameters:
    ///   - arguments: the command-line arguments without the program name.
    ///   - output: where everything is written.
    ///   - makeHandler: opens the store named by the invocation and returns the command layer.
    ///   - generate: writes `count` generated recipes from `seed` to the file `output`.
    static func run<Handler: CommandHandler>(
        arguments: [String],
        output: any ShellOutput = StandardStreams(),
        makeHandler: (Invocation) async throws -> Handler,
        generate: @escaping (_ count: Int, _ seed: UInt64, _ output: String) async throws -> Void,
        benchStacks: @escaping @MainActor (_ count: Int, _ plot: String?, _ only: String?) async throws -> Void = { _, _, _ in }
    ) async -> Int32 {
        setlocale(LC_ALL, "")  // before libedit starts: UTF-8 input
        let invocation: Invocation
        do {
            invocation = try InvocationParser.parse(arguments)
        } catch {
            output.write("recipes: error: \(error.message)\n\(error.hint)\n", to: .standardError)
            return InvocationError.exitStatus
        }
        switch invocation.action {
        case .help:
            output.write(Usage.text, to: .standardOutput)
            return 0
        case .listTutorials:
            do {
                let library = try TutorialLibrary.locate()
                output.write("Tutorials (recipes tutorial N walks you through one):\n", to: .standardOutput)
                for line in library.listing() { output.write(line + "\n", to: .standardOutput) }
                return 0
            } catch {
                output.write("error: \(REPLSession<Handler>.message(for: error))\n", to: .standardError)
                return 1
            }
        case .exercise(let request):
            return await ExerciseCommand.run(request, output: output)
        case .benchStacks(let count, let plot, let only):
            return await runInterruptibly(Task { @MainActor in try await benchStacks(count, plot, only) }) { error in
                output.write("error: \(REPLSession<Handler>.message(for: error))\n", to: .standardError)
            }
        case .generate(let count, let seed, let path):
            return await runInterruptibly(Task { try await generate(count, seed, path) }) { error in
                output.write("error: \(REPLSession<Handler>.message(for: error))\n", to: .standardError)
            }
        case .shell:
            InterruptSignal.install()
            var invocation = invocation
            var tutorial: TutorialDocument?
            // The scratch folder of a walk without a STORE: removed however the shell ends
            // (on SIGTERM and SIGHUP too: openTutorial registers it with TerminationSignal).
            var scratch: URL?
            defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
            if let named = invocation.tutorial {
                // The walk moves to a scratch folder: a relative STORE is the learner's, in
                // the folder they typed it in, not a new file in the scratch folder.
                if let path = invocation.storePath, !path.hasPrefix("/"), !path.contains(":") {
                    invocation.storePath = URL(fileURLWithPath: path).standardizedFileURL.path
                }
                do {
                    let keepsFiles = invocation.storePath != nil
                    let opened = try openTutorial(named, keepsFiles: keepsFiles, output: output)
                    tutorial = opened.document
                    if !keepsFiles { scratch = opened.scratch }
                } catch {
                    output.write("error: \(REPLSession<Handler>.message(for: error))\n", to: .standardError)
                    return 1
                }
                if invocation.storePath == nil { invocation.isInMemory = true }  // as the transcripts were made
            }
            let handler: Handler
            do {
                handler = try await makeHandler(invocation)
            } catch {
                output.write("error: \(REPLSession<Handler>.message(for: error))\n", to: .standardError)
                return 1
            }
            let session = REPLSession(handler: handler, output: output, options: SessionOptions(invocation))
            if !invocation.steps.isEmpty {
                return await session.runBatch(invocation.steps)
            }
            let isTerminal = StandardStreams.isTerminal(STDIN_FILENO)
            let completions = session.completions
            let historyPath = EditLineEditor.defaultHistoryPath()
            let makeEditor = { @Sendable () -> any LineEditor in
                guard isTerminal else { return PlainLineReader() }
                if let editor = EditLineEditor(historyPath: historyPath, completions: completions) {
                    return editor
                }
                return PlainLineReader()  // no usable terminal description: read plainly
            }
            if let tutorial {
                return await session.runTutorial(tutorial, isTerminal: isTerminal, makeEditor: makeEditor)
            }
            guard isTerminal else {
                return await session.runStandardInput()
            }
            return await session.runInteractive(makeEditor: makeEditor)
        }
    }

    /// Reads the tutorial the invocation names and, when it lives in a checkout's
    /// `Tutorials` folder, moves to a new scratch folder whose `SampleData` and `Tutorials`
    /// lead to the checkout's: its commands find the sample files, and the files it writes
    /// (`.open --migrate … --copy-to catalog-v2.sqlite`) land there, so a second walk starts
    /// afresh and the checkout stays clean. Returns the scratch folder too, if it made one:
    /// unless `keepsFiles` (the learner named a STORE), the caller removes it at the end.
    private static func openTutorial(
        _ tutorial: Invocation.Tutorial, keepsFiles: Bool, output: any ShellOutput
    ) throws -> (document: TutorialDocument, scratch: URL?) {
        let file: URL
        switch tutorial {
        case .named(let name): file = try TutorialLibrary.locate().file(for: name)
        case .file(let path): file = URL(fileURLWithPath: path)
        }
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CommandError("cannot read the tutorial \(file.path): \((error as NSError).localizedDescription)")
        }
        let folder = file.standardizedFileURL.deletingLastPathComponent()
        let checkout = folder.deletingLastPathComponent()
        let manager = FileManager.default
        var scratchFolder: URL?
        if folder.lastPathComponent == "Tutorials",
           manager.fileExists(atPath: checkout.appendingPathComponent("SampleData").path) {
            let scratch = manager.temporaryDirectory.appendingPathComponent("recipes-tutorial-\(UUID().uuidString.prefix(8))")
            do {
                try manager.createDirectory(at: scratch, withIntermediateDirectories: true)
                for name in ["SampleData", "Tutorials"] {
                    try manager.createSymbolicLink(at: scratch.appendingPathComponent(name),
                                                   withDestinationURL: checkout.appendingPathComponent(name))
                }
            } catch {
                try? manager.removeItem(at: scratch)
                throw CommandError("cannot make a folder for the tutorial at \(scratch.path): \((error as NSError).localizedDescription)")
            }
            if !keepsFiles { TerminationSignal.removeOnTermination(scratch) }
            _ = manager.changeCurrentDirectoryPath(scratch.path)
            output.write("(commands run in \(scratch.path), where SampleData/ leads to \(checkout.path)/SampleData; "
                         + (keepsFiles ? "the files the tutorial writes stay there"
                                       : "the folder is removed when the shell ends") + ")\n", to: .standardOutput)
            scratchFolder = scratch
        }
        return (TutorialDocument(markdown: text), scratchFolder)
    }

    /// Waits for `task`, cancelling it on Ctrl-C; returns 0, or 1 (130 when cancelled)
    /// after `report` has shown the error. The task starts once Ctrl-C is caught, so an early
    /// press cancels it rather than ending the process.
    private static func runInterruptibly(
        _ start: @autoclosure () -> Task<Void, any Error>, report: (any Error) -> Void
    ) async -> Int32 {
        InterruptSignal.install()
        let task = start()
        let registration = InterruptSignal.counter.whenInterrupted { task.cancel() }
        defer { registration.cancel() }
        switch await task.result {
        case .success:
            return 0
        case .failure(let error):
            report(error)
            return error is CancellationError ? 130 : 1
        }
    }
}
