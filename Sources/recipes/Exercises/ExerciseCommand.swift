import Foundation
import ObjectGraph

/// `recipes exercise list | check N | hint N`: works through the teaching exercises.
///
/// `check N` builds the exercise's checker with `swift build --package-path Exercises
/// --product check-NN` (the build's messages stream to standard error), runs it on the
/// learner's file, passes its report (each figure against its budget) to standard output
/// and records the state and figures in the progress file. Exit status: 0 when the
/// exercise passes (or the list or hint was printed), 1 when it fails or anything went wrong.
struct ExerciseCommand {
    /// The exercises.
    var folder: ExerciseFolder
    /// Where progress is kept.
    var progressURL: URL
    /// Where the command writes.
    var output: any ShellOutput
    /// How to start `swift`; tests put a stand-in first on `PATH`.
    var swift = ["/usr/bin/env", "swift"]
    /// The moment of a check, for the progress file.
    var now: () -> Date = Date.init

    /// Runs `request` and returns the exit status; Ctrl-C stops a build or check under way.
    @MainActor
    static func run(_ request: ExerciseRequest, output: any ShellOutput) async -> Int32 {
        InterruptSignal.install()
        // The folder is found before the task: the optimizer (release with -enable-testing, as
        // `make fuzz` and `make soak` build) crashed splitting this closure when a typed
        // throw happened inside it (swift-frontend signal 11 in CoroSplit).
        let folder: ExerciseFolder
        do {
            folder = try ExerciseFolder.locate()
        } catch {
            output.write("error: \(error.message)\n", to: .standardError)
            return 1
        }
        let task = Task { @MainActor () async throws -> Bool in
            try await ExerciseCommand(folder: folder, progressURL: ExerciseProgress.fileURL(), output: output).run(request)
        }
        let registration = InterruptSignal.counter.whenInterrupted { task.cancel() }
        defer { registration.cancel() }
        switch await task.result {
        case .success(let passed):
            return passed ? 0 : 1
        case .failure(let error):
            let message = switch error {
            case is CancellationError: "interrupted"
            case let error as CommandError: error.message
            default: String(describing: error)
            }
            output.write("error: \(message)\n", to: .standardError)
            return error is CancellationError ? 130 : 1
        }
    }

    /// Runs `request`; false when a check did not pass.
    func run(_ request: ExerciseRequest) async throws -> Bool {
        switch request {
        case .list:
            try list()
            return true
        case .hint(let number):
            try hint(number)
            return true
        case .check(let number):
            return try await check(number)
        }
    }

    // MARK: list

    /// Prints each exercise with its state and last figures, or why its last check failed.
    func list() throws(CommandError) {
        let progress = try ExerciseProgress.load(from: progressURL)
        let rows = try folder.entries().map { entry -> [String] in
            let record = progress[entry.number]
            let state = switch record.state {
            case .passing?: "passing"
            case .failing?: "failing"
            case nil: "not started"
            }
            let shown = record.state == .failing ? record.figures.filter { $0.value > $0.budget } : record.figures
            let figures = shown.map { "\($0.name) \(grouped($0.value)) (budget \(grouped($0.budget)))" }
            // A failed check says why first when a figure cannot: a wrong result, a build or a crash.
            let last = (record.state == .failing ? record.reason.map { [$0] } ?? [] : []) + figures
            return [entry.paddedNumber, entry.title, state, last.joined(separator: ", ")]
        }
        let table = TextTable(header: ["#", "exercise", "state", "last check"], rows: rows,
                              isCuttable: [false, false, false, true], maximumCellWidth: nil)
        for line in table.lines(fittingIn: output.standardOutputColumns) { output.printLine(line) }
        output.printLine("")
        output.printLine("Work in \(folder.url.path)/NN-name/; 'recipes exercise check N' measures your file, 'recipes exercise hint N' helps.")
    }

    // MARK: hint

    /// Prints the hints shown so far and one more, and counts it in the progress file.
    func hint(_ number: Int) throws(CommandError) {
        let entry = try folder.entry(number)
        let file = entry.url.appendingPathComponent("hint.md")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw CommandError("cannot read \(file.path)")
        }
        let hints = ExerciseHints(parsing: text).hints
        guard !hints.isEmpty else { throw CommandError("\(file.path) has no '## Hint 1' section") }
        var progress = try ExerciseProgress.load(from: progressURL)
        let shown = min(hints.count, progress[number].hintsShown + 1)
        for index in 0..<shown {
            output.printLine("Exercise \(entry.paddedNumber) · \(entry.title) — hint \(index + 1) of \(hints.count)")
            output.printLine("")
            output.printLine(hints[index])
            output.printLine("")
        }
        if shown < hints.count {
            output.printLine("('recipes exercise hint \(number)' again shows the next hint.)")
        } else {
            output.printLine("That was the last hint; the reference solution is in \(folder.url.path)/Solutions/\(entry.name)/.")
        }
        progress[number].hintsShown = shown
        try progress.save(to: progressURL)
    }

    // MARK: check

    /// Builds and runs exercise `number`'s checker on the learner's file; true when it passes.
    func check(_ number: Int) async throws -> Bool {
        let entry = try folder.entry(number)
        // A progress file that cannot be read would otherwise fail the command only after
        // the build and the check, minutes later on a fresh checkout, with nothing recorded.
        _ = try ExerciseProgress.load(from: progressURL)
        let product = "check-\(entry.paddedNumber)"
        // Without its file the exercise's module is empty: SwiftPM warns about 'Sources/…' and
        // the link fails on mangled names, or an old build of the file is linked in.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: entry.url.path)) ?? []
        guard files.contains(where: { $0.hasSuffix(".swift") }) else {
            try record(number, state: .failing, figures: [], reason: "its Swift file is missing")
            throw CommandError("\(entry.url.path)/ has no Swift file to check; "
                               + "'git checkout -- \(entry.url.path)/' brings back the starter")
        }
        output.write("Building \(product): swift build --package-path \(folder.url.path) --product \(product)\n", to: .standardError)
        let checker = folder.url.appendingPathComponent("Checkers/\(product)")
        let messages = Locked(BuildMessages(checkers: checker.deletingLastPathComponent().path,
                                            columns: output.standardErrorColumns))
        let build = try await ChildProgram.run(swift + ["build", "--package-path", folder.url.path, "--product", product],
                                               capturingOutput: false) { [output] line in
            let text = messages.withLock { $0.text(for: line) }
            if !text.isEmpty { output.write(text, to: .standardError) }
        }
        let (cleared, blamesChecker) = messages.withLock { ($0.finish(), $0.blamesChecker) }
        if !cleared.isEmpty { output.write(cleared, to: .standardError) }
        guard build.status == 0 else {
            // `env` exits 127 when it finds no `swift`: nothing was compiled, so the learner's
            // file is not to blame and the record stays as it was.
            if build.status == 127 && !build.wasSignalled {
                throw CommandError("cannot run 'swift build': no swift on PATH; add the Swift toolchain's usr/bin to PATH and check again")
            }
            try record(number, state: .failing, figures: [], reason: "did not build")
            if blamesChecker {
                // The checker's code names the learner's type: the learner renamed or changed it.
                let file = files.filter { $0.hasSuffix(".swift") }.sorted().first.map { entry.url.appendingPathComponent($0).path }
                    ?? entry.url.path
                let starter = Self.starterName(inChecker: checker.appendingPathComponent("main.swift"))
                throw CommandError("exercise \(number) did not build: the checker expects "
                                   + (starter.map { "the type '\($0)' (public, with a public init())" } ?? "the names the starter had")
                                   + " in \(file); the error above is where the checker uses it")
            }
            throw CommandError("exercise \(number) did not build (swift build: \(build.outcome)); the compiler's messages are above")
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-\(product)-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let binary = folder.url.appendingPathComponent(".build/debug").appendingPathComponent(product)
        // A crash in the learner's code (a precondition, a force-unwrap) prints its message and
        // the crashing thread's frames with their source lines, not every thread and register.
        let run = try await ChildProgram.run([binary.path, "--json", report.path], capturingOutput: true,
                                             environment: ["SWIFT_BACKTRACE": "preset=friendly,threads=crashed,registers=none,images=none"])
        output.write(String(decoding: run.output, as: UTF8.self), to: .standardOutput)
        // The report is written whenever the checker finished, even when the result was wrong
        // before anything could be measured (the learner's code threw): only a missing report
        // means the checker itself stopped.
        let checked = try? JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: report))
        let figures = checked?.measurements ?? []
        let passed = run.status == 0 && !run.wasSignalled
        let reason: String? = if let checked { checked.problems?.first.map { "incorrect: " + $0.prefix { $0 != "\n" } } } else { "stopped (\(run.outcome))" }
        try record(number, state: passed ? .passing : .failing, figures: figures, reason: passed ? nil : reason)
        if checked == nil && !passed {
            throw CommandError("the checker of exercise \(number) stopped (\(run.outcome)) before it could measure; its messages are above")
        }
        if passed {
            let next = try folder.entries().first { $0.number > number }
            output.printLine(next.map { "Exercise \(number) passes. Next: recipes exercise check \($0.number) (\($0.title))." }
                             ?? "Exercise \(number) passes: that was the last one.")
        } else {
            output.printLine("Edit the file named above and check again; 'recipes exercise hint \(number)' gives a hint.")
        }
        return passed
    }

    /// The type a checker runs on the learner's file: `BatchSaver` in its `main.swift`'s
    /// `starter: BatchSave.BatchSaver()`; `nil` when the file says otherwise.
    static func starterName(inChecker file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let match = text.firstMatch(of: /starter:\s*(?:\w+\.)?(\w+)\(/)
        else { return nil }
        return String(match.1)
    }

    private func record(_ number: Int, state: ExerciseProgress.State, figures: [ExerciseProgress.Figure],
                        reason: String?) throws(CommandError) {
        var progress = try ExerciseProgress.load(from: progressURL)
        progress[number].state = state
        progress[number].checked = now()
        progress[number].figures = figures
        progress[number].reason = reason
        try progress.save(to: progressURL)
    }

    /// The part of a checker's JSON report the progress file keeps.
    private struct CheckReport: Decodable {
        var measurements: [ExerciseProgress.Figure]
        /// What the correctness checks found wrong; empty when the result was right.
        var problems: [String]?
    }
}

/// `12345` → `12,345`.
private func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}
