import Foundation
import ObjectGraph
import RecipeCatalog

extension RecipeShell {
    /// `import FILE [--batch N] [--background] [--pause MS]`: imports off the main actor, with a progress
    /// bar, Ctrl-C stopping after the batch in progress; with `--background`, as a job that
    /// gives the prompt back at once (see ``startBackgroundImport(_:options:_:)``).
    func importFile(_ text: String, _ context: CommandContext) async throws {
        var words = try CommandWords.split(text)
        let isBackground = words.contains("--background")
        words.removeAll { $0 == "--background" }
        var options = RecipeImporter.Options()
        /// Takes `flag` and the number after it out of `words`.
        func number(after flag: String, _ kind: String, minimum: Int) throws -> Int? {
            guard let index = words.firstIndex(of: flag) else { return nil }
            guard words.count(where: { $0 == flag }) == 1 else { throw CommandError("\(flag) is given twice; give it once") }
            guard index + 1 < words.count else { throw CommandError("\(flag) needs \(kind)") }
            guard let value = Int(words[index + 1]), value >= minimum else {
                throw CommandError("\(flag) needs \(kind), not '\(words[index + 1])'")
            }
            words.removeSubrange(index...(index + 1))
            return value
        }
        if let size = try number(after: "--batch", "a positive number", minimum: 1) { options.batchSize = size }
        if let pause = try number(after: "--pause", "a number of milliseconds", minimum: 0) {
            options.pauseAfterBatch = .milliseconds(pause)
        }
        let usage = "import FILE [--batch N] [--background] [--pause MS]"
        if let option = words.first(where: { $0.hasPrefix("--") }) {
            throw CommandError("unknown option '\(option)' for import: \(usage)")
        }
        guard words.count == 1 else {
            throw CommandError("import needs one file\(words.isEmpty ? "" : ", found \(words.count)"): \(usage)")
        }
        let path = CommandWords.filePath(words[0])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw CommandError("no such file: \(path)") }
        guard !isDirectory.boolValue else { throw CommandError("cannot import '\(path)': it is a directory; name a .jsonl or .tsv file in it") }
        // The shell's own reader holds standard input: both would read it, each taking lines
        // the other needed. `-c` and `-f` leave it free.
        if context.mode != .batch && StandardStreams.isStandardInput(path) {
            throw CommandError("cannot import '\(words[0])': it is standard input, where the shell reads its commands; "
                               + "pipe recipes into `recipes STORE -c \"import /dev/stdin\"`, or name a file")
        }
        let url = URL(fileURLWithPath: path)
        try requireNoRunningJob(before: "starting another import")
        if isBackground {
            guard url.pathExtension != "tsv" else {
                throw CommandError("--background imports recipe files (.jsonl); import the ingredient catalogue without it")
            }
            try startBackgroundImport(url, options: options, context)
            return
        }
        if url.pathExtension == "tsv" {
            let count = try await catalog.importIngredients(from: url)
            context.print("imported \(count) ingredient\(count == 1 ? "" : "s") from \(url.lastPathComponent)")
            return
        }
        // JSON mode is for programs: no progress bar there.
        let progress = mode == .json ? ProgressBar.silent()
            : context.makeProgressBar(label: "import", total: RecipeFileReader.lineCount(of: url))
        let interrupt = context.interrupt
        let start = ContinuousClock.now
        let report = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator),
            isCancelled: { interrupt.isRaised },
            progress: { step in progress.update(done: step.lines) })
        progress.finish()
        for error in report.errors { context.printDiagnostic("warning: \(error)") }
        var summary = "imported \(report.imported) recipe\(report.imported == 1 ? "" : "s") from \(url.lastPathComponent)"
        if report.resumedAfterLine > 0 { summary += ", resuming after line \(report.resumedAfterLine)" }
        if report.changedSinceLine > 0 { summary += ", " + ImportJob.changedNote(report.changedSinceLine) }
        if report.skippedExisting > 0 { summary += "; \(report.skippedExisting) already in the catalogue were skipped" }
        if !isDeterministic {
            let elapsed = ContinuousClock.now - start
            summary += String(format: " (%.2f s)", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        context.print(summary)
        if report.wasCancelled {
            // The line of the last batch saved, where the import resumes: the batch read after
            // it (up to report.lines) was not saved.
            context.print("import stopped after line \(report.savedThroughLine): every saved batch is kept; "
                          + (RecipeFileReader.isRegularFile(url) ? "run the same import again to continue"
                                                                 : "a pipe is read once: it cannot resume"))
            throw CancellationError()
        }
        if !report.errors.isEmpty {
            throw CommandError("\(report.errors.count) line\(report.errors.count == 1 ? "" : "s") of \(url.lastPathComponent) could not be imported (listed above)")
        }
    }
}
