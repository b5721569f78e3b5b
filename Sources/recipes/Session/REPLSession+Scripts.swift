extension REPLSession {
    /// Runs the `-c` commands and `-f` scripts in order, then finishes the run.
    ///
    /// A `-c` command is reported as `-c:N` (its index among the `-c` options); a script
    /// line as `path:line`. A missing script is one failure, reported with its path.
    /// The run stops at `.quit`, at Ctrl-C, or — with `--bail` — at the first failure.
    ///
    /// - Returns: the exit status (see ``exitStatus``).
    func runBatch(_ steps: [Invocation.Step]) async -> Int32 {
        mode = .batch
        refreshCompletions()
        var commandIndex = 0
        steps: for step in steps {
            let outcome: LineOutcome
            switch step {
            case .command(let text):
                commandIndex += 1
                outcome = await runLines(text.split(omittingEmptySubsequences: false,
                                                    whereSeparator: \.isNewline),
                                         at: { _ in .command(commandIndex) })
            case .script(let path):
                outcome = await runTopLevelScript(at: path)
            }
            if shouldStop(after: outcome) { break steps }
        }
        await finishNonInteractiveRun()
        return exitStatus
    }

    /// Runs a `-f` script, reporting a file that cannot be read as one failure.
    func runTopLevelScript(at path: String) async -> LineOutcome {
        do {
            let lines = try ScriptFile.lines(at: path)
            runningScripts.append((path, ScriptFile.resolved(path)))
            defer { runningScripts.removeLast() }
            return await runLines(lines, at: { .script(path, line: $0) })
        } catch {
            failureCount += 1
            report(error.message, at: nil)
            return .failed
        }
    }

    /// Runs `lines`, numbering them from 1 for `location`; stops at `.quit`, Ctrl-C, or a
    /// failure under `--bail`.
    ///
    /// - Returns: ``LineOutcome/failed`` if any line failed, or the outcome that stopped it.
    func runLines<Line: StringProtocol>(_ lines: [Line],
                                        at location: (Int) -> SourceLocation) async -> LineOutcome {
        var anyFailed = false
        for (index, line) in lines.enumerated() {
            let outcome = await execute(String(line), at: location(index + 1))
            switch outcome {
            case .succeeded: continue
            case .quit, .interrupted: return outcome
            case .failed:
                anyFailed = true
                if options.bailsOnError { return .failed }
            }
        }
        return anyFailed ? .failed : .succeeded
    }

    /// `.read FILE` from inside a command (``CommandContext/runScript(at:)``).
    ///
    /// A script that is already running (it reads itself, or a script it reads reads it
    /// again) is refused before any of its lines runs a second time.
    func runNestedScript(at path: String) async throws -> CommandResult {
        let resolved = ScriptFile.resolved(path)
        if runningScripts.contains(where: { $0.resolved == resolved }) {
            let chain = (runningScripts.map(\.path) + [path]).joined(separator: " → ")
            throw CommandError("'\(path)' is already being read (\(chain)): a script cannot read itself")
        }
        guard scriptDepth < Self.maximumScriptDepth else {
            throw CommandError("scripts nested more than \(Self.maximumScriptDepth) deep ('\(path)' was not read)")
        }
        let lines = try ScriptFile.lines(at: path)
        scriptDepth += 1
        runningScripts.append((path, resolved))
        defer {
            scriptDepth -= 1
            runningScripts.removeLast()
        }
        switch await runLines(lines, at: { .script(path, line: $0) }) {
        case .succeeded: return .ok
        case .quit: return .quit
        case .failed: throw ScriptFailure(wasInterrupted: false)
        case .interrupted: throw ScriptFailure(wasInterrupted: true)
        }
    }

    /// Whether a non-interactive run ends after a line with `outcome`.
    func shouldStop(after outcome: LineOutcome) -> Bool {
        switch outcome {
        case .succeeded: false
        case .quit, .interrupted: true
        case .failed: options.bailsOnError
        }
    }
}
