import Foundation
import Testing

/// Runs every tutorial in `Tutorials/` through the real `recipes` binary and compares its
/// output with the transcript in the file, so the tutorials cannot drift from the program.
///
/// A tutorial is Markdown with ```` ```repl ```` blocks: lines starting `recipes> ` are typed,
/// every other line is the expected output (standard output and error, merged). A line
/// `...` matches any number of lines and `[..]` any text within a line. Each file runs as
/// one session of `recipes --memory --deterministic` in a scratch folder where `SampleData`
/// and `Tutorials` are the repository's (so paths read as from the repository root), with
/// `.echo on` so the output is itself a transcript. With `RECIPES_BLESS=1` the blocks are
/// rewritten from the actual run instead.
struct TranscriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let tutorials: [String] = {
        let folder = root.appendingPathComponent("Tutorials")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
    }()

    @Test func thereAreTutorials() {
        #expect(Self.tutorials.count >= 4)
    }

    @Test(arguments: tutorials)
    func tutorialTranscriptMatches(_ name: String) async throws {
        let url = Self.root.appendingPathComponent("Tutorials").appendingPathComponent(name)
        let document = try Transcript(markdown: String(contentsOf: url, encoding: .utf8))
        // A scratch folder that shows the repository's SampleData and Tutorials, so the files
        // a tutorial writes (`.migrate xml catalog.xml`) land there and go with it.
        let folder = try TemporaryDirectory()
        let links = ["SampleData", "Tutorials"].map { folder.url.appendingPathComponent($0).path }
        for (link, name) in zip(links, ["SampleData", "Tutorials"]) {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Self.root.appendingPathComponent(name).path)
        }
        defer { for link in links { unlink(link) } }  // the links go first: removing the folder must not follow them
        // A deadline for a hung run, not a speed test: tutorials with demos take seconds of
        // CPU, and many times that on a machine busy with other builds.
        let run = try await RecipesBinary.run(["--memory", "--deterministic"], input: ".echo on\n" + document.input,
                                              in: folder.url, mergingOutput: true, timeout: .seconds(180))
        let actual = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if ProcessInfo.processInfo.environment["RECIPES_BLESS"] == "1" {
            try document.blessed(with: actual).write(to: url, atomically: true, encoding: .utf8)
            return
        }
        if let mismatch = Transcript.firstMismatch(expected: document.expected, actual: actual) {
            Issue.record("\(name): \(mismatch)")
        }
    }
}

/// The typed lines and expected output of one tutorial.
struct Transcript {
    /// Each block's lines, in order.
    var blocks: [[String]] = []
    /// The Markdown outside the blocks, around them.
    private var prose: [String] = []

    init(markdown: String) throws {
        var inBlock = false
        var current: [String] = []
        var text = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !inBlock && line == "```repl" {
                inBlock = true
                prose.append(text + line)
                text = ""
                current = []
            } else if inBlock && line == "```" {
                inBlock = false
                blocks.append(current)
                text = line + "\n"
            } else if inBlock {
                current.append(line)
            } else {
                text += line + "\n"
            }
        }
        prose.append(String(text.dropLast()))
    }

    /// The commands, one per line.
    var input: String {
        blocks.flatMap { $0.filter { $0.hasPrefix("recipes> ") }.map { String($0.dropFirst(9)) } }
            .joined(separator: "\n") + "\n"
    }

    /// The expected transcript lines (commands and output), in order.
    var expected: [String] { blocks.flatMap { $0 } }

    /// The document with its blocks rewritten from an actual transcript.
    func blessed(with actual: [String]) throws -> String {
        var groups: [[String]] = []
        for line in actual where !(line.isEmpty && line == actual.last) {
            if line.hasPrefix("recipes> ") || groups.isEmpty { groups.append([line]) } else { groups[groups.count - 1].append(line) }
        }
        var result = ""
        for (index, block) in blocks.enumerated() {
            result += prose[index] + "\n"
            let commands = block.filter { $0.hasPrefix("recipes> ") }.count
            for group in groups.prefix(commands) { for line in group { result += line + "\n" } }
            groups.removeFirst(min(commands, groups.count))
        }
        return result + prose[blocks.count]
    }

    /// A description of the first difference, or nil when `actual` matches `expected`.
    static func firstMismatch(expected: [String], actual: [String]) -> String? {
        var actual = actual[...]
        if actual.last == "" { actual = actual.dropLast() }
        func matches(_ pattern: String, _ line: String) -> Bool {
            guard pattern.contains("[..]") else { return pattern == line }
            let parts = pattern.components(separatedBy: "[..]")
            var rest = Substring(line)
            guard rest.hasPrefix(parts[0]) else { return false }
            rest = rest.dropFirst(parts[0].count)
            for part in parts.dropFirst() {
                if part.isEmpty { continue }
                guard let range = rest.range(of: part) else { return false }
                rest = rest[range.upperBound...]
            }
            return parts.last!.isEmpty || line.hasSuffix(parts.last!)
        }
        func match(_ e: ArraySlice<String>, _ a: ArraySlice<String>) -> Bool {
            guard let first = e.first else { return a.isEmpty }
            if first == "..." {
                var rest = a
                while true {
                    if match(e.dropFirst(), rest) { return true }
                    if rest.isEmpty { return false }
                    rest = rest.dropFirst()
                }
            }
            guard let line = a.first, matches(first, line) else { return false }
            return match(e.dropFirst(), a.dropFirst())
        }
        if match(expected[...], actual) { return nil }
        for (index, line) in expected.enumerated() {
            if line == "..." { return "output differs after a '...' line; actual output:\n" + actual.joined(separator: "\n") }
            guard index < actual.count else { return "expected line \(index + 1) '\(line)', but the output ended" }
            let got = actual[actual.startIndex + index]
            if !matches(line, got) { return "line \(index + 1): expected '\(line)', got '\(got)'" }
        }
        return "unexpected extra output: '\(actual.dropFirst(expected.count).first ?? "")'"
    }
}
