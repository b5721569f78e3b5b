import Foundation

/// Runs the built `recipes` executable as a child process and captures what it did.
///
/// The binary is found next to the test bundle (SwiftPM builds the `recipes` target
/// before this test target, which depends on it), or at `$RECIPES_BINARY`.
///
/// ```swift
/// let run = try await RecipesBinary.run(["-c", "echo hi"])
/// #expect(run.standardOutput == "hi\n" && run.status == 0)
/// ```
enum RecipesBinary {
    /// The outcome of one run.
    struct Run: Sendable {
        var standardOutput: String
        var standardError: String
        var status: Int32
    }

    /// The path of the built executable.
    static var path: String {
        if let path = ProcessInfo.processInfo.environment["RECIPES_BINARY"] { return path }
        return path(of: "recipes")
    }

    /// The path of the package's executable `name`, built next to the test bundle.
    static func path(of name: String) -> String {
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
        // The runner may sit inside a bundle directory (…/Foo.xctest/…); walk up to debug/.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return name
    }

    /// Runs `recipes` with `arguments`, feeding `input` on standard input (an empty file
    /// when `nil`), in `directory`, with `HOME` pointing into a temporary directory;
    /// standard error goes to `errorPath` when given, for a test that reads it during the run.
    ///
    /// - Throws: if the process cannot start or runs longer than `timeout`: a deadline that
    ///   only catches a hang, so it is generous (a 200,000-recipe `generate` once took over
    ///   two minutes on a machine at load average 30).
    static func run(_ arguments: [String], input: String? = nil, in directory: URL? = nil,
                    mergingOutput: Bool = false, environment extra: [String: String] = [:],
                    timeout: Duration = .seconds(600), executable: String = path,
                    errorPath: String? = nil) async throws -> Run {
        let scratch = try TemporaryDirectory()
        let inputURL = scratch.url.appendingPathComponent("stdin")
        let outputURL = scratch.url.appendingPathComponent("stdout")
        let errorURL = errorPath.map(URL.init(fileURLWithPath:)) ?? scratch.url.appendingPathComponent("stderr")
        try Data((input ?? "").utf8).write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)

        // Started with posix_spawn, not Foundation's Process (see ChildProcess); merged
        // output goes to one file, in the order it was written.
        let pid = try ChildProcess.spawn(executable, arguments: arguments, environment: environment(home: scratch.url, extra),
                                         directory: (directory ?? scratch.url).path, input: .file(inputURL.path),
                                         output: .file(outputURL.path), error: mergingOutput ? nil : .file(errorURL.path))
        /// Kills and reaps the child, which must not outlive the run.
        func stop() async {
            kill(pid, SIGKILL)
            while ChildProcess.exitStatus(of: pid) == nil { try? await Task.sleep(for: .milliseconds(1)) }
        }
        let ending: (status: Int32, wasSignalled: Bool)?
        do {
            ending = try await ChildProcess.termination(of: pid, before: HangLimit.deadline(after: timeout))
        } catch {
            await stop()
            throw error
        }
        guard let ending else {
            await stop()
            throw TestFailure("recipes \(arguments) did not finish within \(timeout)")
        }
        return Run(standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
                   standardError: try String(contentsOf: errorURL, encoding: .utf8),
                   status: ending.status)
    }

    /// The environment `recipes` runs in under the tests: this process's, with `HOME` set to
    /// `home`, text in UTF-8, no `XDG_DATA_HOME`, then `extra`.
    static func environment(home: URL, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["LANG"] = "C.UTF-8"
        environment["XDG_DATA_HOME"] = nil
        return environment.merging(extra) { $1 }
    }
}
