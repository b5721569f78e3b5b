import Foundation
import Testing
@testable import recipes

/// Reading the exercises' progress file: hand-edited files and what is said about bad ones.
@Suite("ExerciseProgress")
struct ExerciseProgressTests {
    /// Loads `text` as a progress file; returns the progress or the error's message.
    static func load(_ text: String) throws -> Result<ExerciseProgress, CommandError> {
        let directory = try TemporaryDirectory()
        let path = try directory.write(text, to: "exercises.json")
        do { return .success(try ExerciseProgress.load(from: URL(fileURLWithPath: path))) } catch { return .failure(error) }
    }

    @Test("A record without hintsShown, figures or any other field reads them as their defaults")
    func missingFieldsTakeTheirDefaults() throws {
        let progress = try Self.load(#"{"exercises": {"1": {"state": "passing"}, "2": {"hintsShown": 2}, "3": {}}}"#).get()
        #expect(progress[1].state == .passing && progress[1].hintsShown == 0 && progress[1].figures == [])
        #expect(progress[2].hintsShown == 2 && progress[2].state == nil && progress[2].figures == [])
        #expect(progress[3] == ExerciseProgress.Entry())
        #expect(try Self.load("{}").get() == ExerciseProgress())
    }

    @Test("A file that is not progress is refused with its path, the JSON path and what was expected there", arguments: [
        (#"{"exercises": {"1": {"hintsShown": "two"}}}"#, "(at exercises.1.hintsShown: expected a whole number, found a string)"),
        (#"{"exercises": {"1": {"figures": {}}}}"#, "(at exercises.1.figures: expected an array, found a dictionary)"),
        (#"{"exercises": {"1": {"figures": [{"name": "saves", "value": 3}]}}}"#, "(at exercises.1.figures.0: 'budget' is missing)"),
        (#"[]"#, "(at the top: expected an object, found an array)"),
        (#"{"exercises": "#, "(not JSON: Unexpected end of file during JSON parse.)"),
    ])
    func badFilesSayWhere(text: String, detail: String) throws {
        guard case .failure(let error) = try Self.load(text) else {
            Issue.record("read \(text) as progress")
            return
        }
        #expect(error.message.contains("exercises.json is not a progress file \(detail); remove it"), "\(error.message)")
    }
}
