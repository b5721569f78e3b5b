import Foundation
import Testing

/// `recipes exercise list | hint N | check N` through the real binary, with the progress
/// file in a temporary `XDG_DATA_HOME`. `list` and `hint` read the repository's real
/// `Exercises/`; `check` runs against a stand-in exercises folder whose `swift` and
/// checker are small scripts, so the test never builds the exercises package (its own
/// tests, `swift test --package-path Exercises`, run the real checkers).
@Suite("recipes exercise")
struct ExerciseCommandTests {
    /// The repository root: Tests/RecipesCLITests/EndToEnd/this file → up four.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The words of exercise `number`'s row in the output of `exercise list`.
    static func row(_ number: Int, of run: RecipesBinary.Run) -> [String] {
        let prefix = number < 10 ? "0\(number) " : "\(number) "
        return run.standardOutput.split(separator: "\n").first { $0.hasPrefix(prefix) }?
            .split(separator: " ").map(String.init) ?? []
    }

    @Test("list shows the six exercises not started; hint shows one more hint each time and remembers it")
    func listAndHint() async throws {
        let data = try TemporaryDirectory()
        let environment = ["XDG_DATA_HOME": data.url.path]
        let list = try await RecipesBinary.run(["exercise", "list"], in: Self.root, environment: environment)
        #expect(list.status == 0, "\(list.standardError)")
        let rows = list.standardOutput.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(rows.count == 6 && rows.allSatisfy { $0.contains("not started") }, "\(list.standardOutput)")
        #expect(rows.first?.hasPrefix("01  Batch saves") == true, "\(list.standardOutput)")

        let first = try await RecipesBinary.run(["exercise", "hint", "1"], in: Self.root, environment: environment)
        #expect(first.status == 0 && first.standardOutput.contains("hint 1 of 3"), "\(first.standardOutput)\(first.standardError)")
        #expect(!first.standardOutput.contains("hint 2 of 3"))
        let second = try await RecipesBinary.run(["exercise", "hint", "1"], in: Self.root, environment: environment)
        #expect(second.standardOutput.contains("hint 1 of 3") && second.standardOutput.contains("hint 2 of 3"))
        let progress = try String(contentsOf: data.url.appendingPathComponent("recipes/exercises.json"), encoding: .utf8)
        #expect(progress.contains("\"hintsShown\" : 2"), "\(progress)")

        let unknown = try await RecipesBinary.run(["exercise", "hint", "9"], in: Self.root, environment: environment)
        #expect(unknown.status == 1 && unknown.standardError.contains("there is no exercise 9; the exercises are numbered 1–6"),
                "\(unknown.standardError)")
        let elsewhere = try await RecipesBinary.run(["exercise", "list"], environment: ["RECIPES_EXERCISES": "/tmp"])
        #expect(elsewhere.status == 1 && elsewhere.standardError.contains("RECIPES_EXERCISES is '/tmp'"), "\(elsewhere.standardError)")
    }

    @Test("RECIPES_EXERCISES naming a folder that does not exist, or the checkout instead of its Exercises, says which")
    func misplacedExercisesVariable() async throws {
        let nowhere = try await RecipesBinary.run(["exercise", "list"], environment: ["RECIPES_EXERCISES": "/nonexistent/Exercises"])
        #expect(nowhere.status == 1 && nowhere.standardError.contains("RECIPES_EXERCISES is '/nonexistent/Exercises', which does not exist"),
                "\(nowhere.standardError)")
        let checkout = try await RecipesBinary.run(["exercise", "list"], environment: ["RECIPES_EXERCISES": Self.root.path])
        #expect(checkout.status == 1 && checkout.standardError.contains("a checkout, not its exercises: set it to '\(Self.root.path)/Exercises'"),
                "\(checkout.standardError)")
    }

    @Test("check streams the build to standard error, prints the checker's report and records state and figures")
    func check() async throws {
        let sandbox = try StandInExercises()
        let passing = try await sandbox.check(status: 0)
        #expect(passing.status == 0, "\(passing.standardError)")
        #expect(passing.standardOutput.hasPrefix("REPORT of the stand-in checker\n"), "\(passing.standardOutput)")
        #expect(passing.standardOutput.contains("Exercise 1 passes: that was the last one."))
        #expect(passing.standardError.contains("stand-in swift: build --package-path \(sandbox.exercises.path) --product check-01"),
                "\(passing.standardError)")
        #expect(!passing.standardOutput.contains("stand-in swift"), "build output belongs on standard error")
        let passedList = try await sandbox.run(["exercise", "list"])
        #expect(Self.row(1, of: passedList) == ["01", "Demo", "passing", "transactions", "4", "(budget", "10)"], "\(passedList.standardOutput)")

        let failing = try await sandbox.check(status: 1, value: 2_000)
        #expect(failing.status == 1 && failing.standardOutput.contains("'recipes exercise hint 1' gives a hint"), "\(failing.standardOutput)")
        let failedList = try await sandbox.run(["exercise", "list"])
        #expect(Self.row(1, of: failedList) == ["01", "Demo", "failing", "transactions", "2,000", "(budget", "10)"], "\(failedList.standardOutput)")

        let broken = try await sandbox.check(status: 0, buildStatus: 1)
        #expect(broken.status == 1 && broken.standardError.contains("exercise 1 did not build (swift build: exit status 1)"),
                "\(broken.standardError)")
        #expect(Self.row(1, of: try await sandbox.run(["exercise", "list"])) == ["01", "Demo", "failing", "did", "not", "build"])
        // 127 is env's status when no swift is on PATH: not the learner's build failing.
        let noSwift = try await sandbox.check(status: 0, buildStatus: 127)
        #expect(noSwift.status == 1 && noSwift.standardError.contains("no swift on PATH"), "\(noSwift.standardError)")
        #expect(!noSwift.standardError.contains("did not build"), "\(noSwift.standardError)")
        let crashed = try await sandbox.run(["exercise", "check", "1"], extra: ["STAND_IN_SIGNAL": "ABRT"])
        #expect(crashed.status == 1 && crashed.standardError.contains("the checker of exercise 1 stopped (signal 6) before it could measure"),
                "\(crashed.standardError)")
        #expect(Self.row(1, of: try await sandbox.run(["exercise", "list"])) == ["01", "Demo", "failing", "stopped", "(signal", "6)"])
        let unknown = try await sandbox.run(["exercise", "check", "2"])
        #expect(unknown.status == 1 && unknown.standardError.contains("there is no exercise 2"), "\(unknown.standardError)")
    }

    @Test("A type renamed in the learner's file: the checker's error is shown once, and what the checker expects is said")
    func checkOfARenamedType() async throws {
        let sandbox = try StandInExercises()
        let main = sandbox.exercises.appendingPathComponent("Checkers/check-01/main.swift").path
        // As swift build prints it: the same error when emitting the module and when compiling.
        let error = """
            \(main):3:57: error: module 'Demo' has no member named 'DemoSaver'
            1 | import Demo
            2 |
            3 | await CheckCommand.run(DemoCheck.self, starter: Demo.DemoSaver(), solution: DemoSolution.DemoSaver())
              |                                                      `- error: module 'Demo' has no member named 'DemoSaver'
            """
        let messages = try sandbox.directory.write("[8/12] Emitting module check_01\n\(error)\n[9/12] Compiling check_01 main.swift\n\(error)\n",
                                                   to: "messages")
        let run = try await sandbox.run(["exercise", "check", "1"],
                                        extra: ["STAND_IN_BUILD_STATUS": "1", "STAND_IN_BUILD_MESSAGES": messages])
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.components(separatedBy: "error: module 'Demo' has no member named 'DemoSaver'").count == 3,
                "the message and its excerpt once: \(run.standardError)")
        #expect(run.standardError.contains("[8/12] Emitting module check_01\n\(error)\n[9/12] Compiling check_01 main.swift\nerror: exercise 1"),
                "\(run.standardError)")
        #expect(run.standardError.hasSuffix("error: exercise 1 did not build: the checker expects the type 'DemoSaver' (public, with a public init()) in "
                                            + "\(sandbox.exercises.path)/01-demo/Demo.swift; the error above is where the checker uses it\n"),
                "\(run.standardError)")
        #expect(Self.row(1, of: try await sandbox.run(["exercise", "list"])) == ["01", "Demo", "failing", "did", "not", "build"])
    }

    @Test("check of code that threw reports a wrong result, not a checker that stopped, and list says why it fails")
    func checkOfCodeThatThrew() async throws {
        let sandbox = try StandInExercises()
        // The checker finished and wrote its report, with a problem and no measurement.
        let wrong = try await sandbox.run(["exercise", "check", "1"],
                                          extra: ["STAND_IN_STATUS": "1", "STAND_IN_PROBLEM": "it threw an error: boom"])
        #expect(wrong.status == 1 && !wrong.standardError.contains("before it could measure"), "\(wrong.standardError)")
        #expect(wrong.standardOutput.contains("'recipes exercise hint 1' gives a hint"), "\(wrong.standardOutput)")
        let list = try await sandbox.run(["exercise", "list"])
        #expect(Self.row(1, of: list) == ["01", "Demo", "failing", "incorrect:", "it", "threw", "an", "error:", "boom"], "\(list.standardOutput)")
    }

    @Test("check of an exercise whose Swift file was deleted says so before building")
    func checkWithoutItsFile() async throws {
        let sandbox = try StandInExercises()
        try FileManager.default.removeItem(at: sandbox.exercises.appendingPathComponent("01-demo/Demo.swift"))
        let missing = try await sandbox.check(status: 0)
        #expect(missing.status == 1 && missing.standardError.contains("01-demo/ has no Swift file to check; 'git checkout -- "),
                "\(missing.standardError)")
        #expect(!missing.standardError.contains("stand-in swift"), "no build is started: \(missing.standardError)")
        let list = try await sandbox.run(["exercise", "list"])
        #expect(Self.row(1, of: list) == ["01", "Demo", "failing", "its", "Swift", "file", "is", "missing"], "\(list.standardOutput)")
    }

    @Test("check with a progress file it cannot read names the file before building, not after the check")
    func checkWithUnreadableProgress() async throws {
        let sandbox = try StandInExercises()
        let progress = sandbox.directory.url.appendingPathComponent("data/recipes/exercises.json")
        try FileManager.default.createDirectory(at: progress.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"exercises\": ".utf8).write(to: progress)
        let run = try await sandbox.check(status: 0)
        #expect(run.status == 1 && run.standardError.contains("\(progress.path) is not a progress file"), "\(run.standardError)")
        #expect(!run.standardError.contains("stand-in swift") && !run.standardOutput.contains("REPORT"),
                "no build or check is started: \(run.standardError)")
    }
}

extension ExerciseCommandTests {
    @Test("Ctrl-C during the build stops the build and the command, which exits with status 130")
    func interruptedBuild() async throws {
        let sandbox = try StandInExercises()
        let pidFile = sandbox.directory.url.appendingPathComponent("build.pid").path
        let scratch = try TemporaryDirectory()
        let recipes = try ChildProcess.spawn(
            RecipesBinary.path, arguments: ["exercise", "check", "1"],
            environment: RecipesBinary.environment(home: scratch.url, sandbox.environment(["STAND_IN_BUILD_PID": pidFile])),
            directory: scratch.url.path,
            input: .file("/dev/null"), output: .file(scratch.url.appendingPathComponent("out").path),
            error: .file(scratch.url.appendingPathComponent("err").path))
        // The stand-in build writes its process ID, then waits ten minutes. The limit only
        // catches a hang: with a core busy elsewhere and the whole suite starting processes
        // at once, the build once took over 120 s to start.
        let deadline = HangLimit.deadline(after: .seconds(400))
        /// Kills and reaps `recipes` after a failure.
        func stop() async {
            kill(recipes, SIGKILL)
            _ = try? await ChildProcess.termination(of: recipes, before: .now + .seconds(60))
        }
        var build: pid_t?
        while build == nil, ContinuousClock.now < deadline {
            build = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if build == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let build else {
            await stop()
            throw TestFailure("the stand-in build never started")
        }
        kill(recipes, SIGINT)
        let status = try await ChildProcess.termination(of: recipes, before: deadline)?.status
        if status == nil { await stop() }
        let errors = try String(contentsOfFile: scratch.url.appendingPathComponent("err").path, encoding: .utf8)
        #expect(status == 130 && errors.hasSuffix("error: interrupted\n"), "status \(String(describing: status)): \(errors)")
        // The build was stopped and reaped (recipes is its parent): no such process is left.
        #expect(kill(build, 0) == -1 && errno == ESRCH, "the stand-in build \(build) outlived the command")
        if kill(build, 0) == 0 { kill(build, SIGKILL) }
    }
}

/// A folder that looks like `Exercises/` to `recipes` (one exercise, `01-demo`), with a
/// `swift` script first on `PATH` and a ready-made `check-01` script.
private struct StandInExercises {
    let directory = try! TemporaryDirectory()
    var exercises: URL { directory.url.appendingPathComponent("Exercises") }

    init() throws {
        let manager = FileManager.default
        try manager.createDirectory(at: exercises.appendingPathComponent("Sources/ExerciseKit"), withIntermediateDirectories: true)
        try manager.createDirectory(at: exercises.appendingPathComponent("01-demo"), withIntermediateDirectories: true)
        try manager.createDirectory(at: exercises.appendingPathComponent(".build/debug"), withIntermediateDirectories: true)
        try manager.createDirectory(at: directory.url.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try directory.write("// swift-tools-version:6.1\n", to: "Exercises/Package.swift")
        try directory.write("# 01 · Demo\n\nA stand-in.\n", to: "Exercises/01-demo/README.md")
        try directory.write("## Hint 1\n\nOne.\n\n## Hint 2\n\nTwo.\n", to: "Exercises/01-demo/hint.md")
        try directory.write("// The learner's file.\n", to: "Exercises/01-demo/Demo.swift")
        try manager.createDirectory(at: exercises.appendingPathComponent("Checkers/check-01"), withIntermediateDirectories: true)
        try directory.write("import Demo\n\nawait CheckCommand.run(DemoCheck.self, starter: Demo.DemoSaver(), solution: DemoSolution.DemoSaver())\n",
                            to: "Exercises/Checkers/check-01/main.swift")
        try script("bin/swift", """
            if [ -n "$STAND_IN_BUILD_PID" ]; then echo $$ > "$STAND_IN_BUILD_PID"; exec sleep 600; fi
            echo "stand-in swift: $*"
            [ -n "$STAND_IN_BUILD_MESSAGES" ] && cat "$STAND_IN_BUILD_MESSAGES"
            exit "${STAND_IN_BUILD_STATUS:-0}"
            """)
        try script("Exercises/.build/debug/check-01", """
            [ -n "$STAND_IN_SIGNAL" ] && kill -"$STAND_IN_SIGNAL" $$
            while [ $# -gt 0 ]; do [ "$1" = --json ] && json="$2"; shift; done
            if [ -n "$STAND_IN_PROBLEM" ]; then
                printf '{"measurements": [], "problems": ["%s"]}' "$STAND_IN_PROBLEM" > "$json"
            else
                printf '{"measurements": [{"name": "transactions", "value": %s, "budget": 10, "advice": "save less often"}]}' \
                    "$STAND_IN_VALUE" > "$json"
            fi
            echo "REPORT of the stand-in checker"
            exit "$STAND_IN_STATUS"
            """)
    }

    private func script(_ name: String, _ body: String) throws {
        let path = try directory.write("#!/bin/sh\n" + body + "\n", to: name)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// The variables that point `recipes` at the stand-ins, and `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        let path = directory.url.appendingPathComponent("bin").path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return [
            "PATH": path, "RECIPES_EXERCISES": exercises.path,
            "XDG_DATA_HOME": directory.url.appendingPathComponent("data").path,
        ].merging(extra) { $1 }
    }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(arguments, environment: environment(extra))
    }

    func check(status: Int, value: Int = 4, buildStatus: Int = 0) async throws -> RecipesBinary.Run {
        try await run(["exercise", "check", "1"], extra: [
            "STAND_IN_STATUS": String(status), "STAND_IN_VALUE": String(value), "STAND_IN_BUILD_STATUS": String(buildStatus),
        ])
    }
}
