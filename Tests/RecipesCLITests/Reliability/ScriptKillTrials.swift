import Foundation
import Testing

/// How a trial picks its moment.
enum KillMoment {
    /// A statement, at random among those an uninterrupted run traces (SQLite stores):
    /// the trace then tells which commits finished.
    case statement
    /// A time, at random within an uninterrupted run after most of the time it takes to open
    /// the store (atomic stores, which run no SQL): the store must then show the state after
    /// some number of steps, whichever.
    case time
}

extension TrialWorkspace {
    /// Kills `recipes STORE -f script` at random moments of `steps` (each step's commands end
    /// in one transaction or one save of the file) and checks each store against the states
    /// after 0…n steps, which uninterrupted runs of the first n steps produce.
    @MainActor
    func runScriptTrials(_ name: String, steps: [[String]], base: String, moment: KillMoment = .statement) async throws {
        let fileExtension = URL(fileURLWithPath: base).pathExtension
        var expected: [CatalogSnapshot] = [try CatalogSnapshot.read(base)]
        for count in 1...steps.count {
            let store = try copy(base, to: "\(name)-expected-\(count).\(fileExtension)")
            let run = try await RecipesBinary.run([store, "-f", try script(Array(steps.prefix(count)), name: "\(name)-\(count)")])
            #expect(run.status == 0, "\(name), \(count) steps: \(run.standardError)")
            expected.append(try CatalogSnapshot.read(store))
            #expect(Bool(expected[count] != expected[count - 1]), "\(name): step \(count) changed nothing")
            try removeStore(store)
        }
        let script = try script(steps, name: name)
        let calibrationStore = try copy(base, to: "\(name)-calibration.\(fileExtension)")
        // How long opening the store takes: times are drawn after most of it, among the steps.
        let opening = try await TracedProcess.run([calibrationStore, "-c", "count Chef"], home: url, killAfter: nil).duration
        let calibration = try await TracedProcess.run([calibrationStore, "-f", script], home: url, killAfter: nil)
        #expect(calibration.status == 0, "\(name): \(calibration.messages)")
        if case .statement = moment {
            try #require(calibration.trace.commits == steps.count, "\(name): \(calibration.trace.commits) commits; \(calibration.messages)")
        }

        var tally = KillTally(name)
        var random = TrialRandom(seed: ReliabilitySettings.seed ^ name.hashValueStable)
        for trial in 0..<ReliabilitySettings.killTrials {
            let store = try copy(base, to: "\(name)-trial-\(trial).\(fileExtension)")
            let outcome: TracedProcess.Outcome
            let possible: ClosedRange<Int>
            let when: String
            switch moment {
            case .statement:
                let statement = Int.random(in: 1...calibration.trace.statements, using: &random)
                outcome = try await TracedProcess.run([store, "-f", script], home: url, killAfter: statement)
                possible = outcome.trace.possibleCommitCounts(isSequential: true)
                when = "after statement \(statement) of \(calibration.trace.statements) (\(outcome.trace.moment), last: \(outcome.trace.lastStatement))"
            case .time:
                let delay = opening * 0.8 + (calibration.duration - opening * 0.8) * Double.random(in: 0...1, using: &random)
                outcome = try await TracedProcess.run([store, "-f", script], home: url, killAfter: nil, killAfterDelay: delay)
                possible = 0...steps.count
                when = "after \(delay) of \(calibration.duration)"
            }
            let snapshot = CatalogSnapshot.check(store)
            let matched = possible.filter { expected[$0] == snapshot }
            tally.record(outcome, matched: !matched.isEmpty, sound: snapshot.problems.isEmpty,
                         tracesStatements: moment == .statement)
            tally.leftovers += try removeLeftovers(of: store)
            if moment == .time, let state = matched.first { tally.statesSeen[state, default: 0] += 1 }
            #expect(snapshot.problems.isEmpty, "\(name) trial \(trial), killed \(when): \(snapshot.problems)")
            #expect(!matched.isEmpty, """
                \(name) trial \(trial): killed \(when); expected the state after \(possible) steps: \
                \(snapshot.difference(from: expected[possible.upperBound]))
                """)
            try removeStore(store)
        }
        tally.report()
    }
}

extension KillMoment: Equatable {}
