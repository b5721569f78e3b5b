import Foundation
import Testing

/// `recipes bench stacks` runs the four context stacks, each in a child process, and
/// reports one row per stack; `--plot` writes the memory chart.
@Suite("bench stacks")
struct BenchStacksTests {
    @Test("A small run prints one row per stack, every stack's main context saw every object, and the chart has four lines")
    func smallRun() async throws {
        let directory = try TemporaryDirectory()
        let chart = directory.url.appendingPathComponent("stacks.svg")
        let run = try await RecipesBinary.run(["bench", "stacks", "--count", "3000", "--plot", chart.path],
                                              timeout: .seconds(300))
        #expect(run.status == 0, "\(run.standardError)")
        let rows = run.standardOutput.split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: " ").first.map(String.init) } == ["I", "II", "III", "IV"])
        #expect(rows.allSatisfy { $0.hasSuffix("yes") }, "\(run.standardOutput)")
        let svg = try String(contentsOf: chart, encoding: .utf8)
        #expect(svg.components(separatedBy: "<polyline").count == 5)
    }

    @Test("Wrong arguments name the problem")
    func wrongArguments() async throws {
        let unknown = try await RecipesBinary.run(["bench", "stacks", "--cont", "5"])
        #expect(unknown.status == 2 && unknown.standardError.contains("--count"), "\(unknown.standardError)")
        let numeral = try await RecipesBinary.run(["bench", "stacks", "--only", "V"])
        #expect(numeral.status == 2 && numeral.standardError.contains("numeral"))
        let other = try await RecipesBinary.run(["bench", "sprint"])
        #expect(other.status == 2 && other.standardError.contains("bench stacks"))
    }
}
