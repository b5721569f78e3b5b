import Testing
import ExerciseKit
import BatchSave
import BatchSaveSolution
import FindOrCreate
import FindOrCreateSolution
import SaveAndReset
import SaveAndResetSolution
import SearchShadow
import SearchShadowSolution
import LargeDelete
import LargeDeleteSolution
import RefreshCycles
import RefreshCyclesSolution

/// Every checker tells its exercise's starter from its reference solution: the solution is
/// correct and within every budget; the starter is correct too (it only wastes), and goes
/// over at least one budget, whose measured figure and budget its report prints.
///
/// Serialized: peak and live objects are process-wide gauges, so one check runs at a time.
@Suite(.serialized)
struct CheckerTests {
    @Test func batchSave() async throws {
        try await expectDiscriminates(BatchSaveCheck.self, starter: BatchSave.BatchSaver(),
                                      solution: BatchSaveSolution.BatchSaver())
    }

    @Test func findOrCreate() async throws {
        try await expectDiscriminates(FindOrCreateCheck.self, starter: FindOrCreate.IngredientImporter(),
                                      solution: FindOrCreateSolution.IngredientImporter())
    }

    @Test func saveAndReset() async throws {
        try await expectDiscriminates(SaveAndResetCheck.self, starter: SaveAndReset.BatchImporter(),
                                      solution: SaveAndResetSolution.BatchImporter())
    }

    @Test func searchShadow() async throws {
        try await expectDiscriminates(SearchShadowCheck.self, starter: SearchShadow.RecipeSearch(),
                                      solution: SearchShadowSolution.RecipeSearch())
    }

    @Test func largeDelete() async throws {
        try await expectDiscriminates(LargeDeleteCheck.self, starter: LargeDelete.RecipeCleanup(),
                                      solution: LargeDeleteSolution.RecipeCleanup())
    }

    @Test func refreshCycles() async throws {
        try await expectDiscriminates(RefreshCyclesCheck.self, starter: RefreshCycles.UsageCounter(),
                                      solution: RefreshCyclesSolution.UsageCounter())
    }

    private func expectDiscriminates<Check: ExerciseCheck>(
        _ check: Check.Type, starter: Check.Implementation, solution: Check.Implementation
    ) async throws {
        let solved = try await Check.check(solution, subject: "the reference solution")
        #expect(solved.isPassing, "the reference solution must pass every budget:\n\(solved.rendered())")

        let started = try await Check.check(starter, subject: "the starter")
        let report = started.rendered()
        #expect(started.problems.isEmpty, "the starter must be correct, only wasteful:\n\(report)")
        #expect(!started.exceeded.isEmpty, "the starter must go over a budget, or the checker cannot tell it from the solution:\n\(report)")
        for measurement in started.exceeded {
            #expect(report.contains(measurement.name) && report.contains(measurement.value.grouped)
                    && report.contains("budget ≤ \(measurement.budget.grouped)"),
                    "the failure report must show what was measured against the budget:\n\(report)")
        }
        #expect(report.contains("FAILING"), "\(report)")
    }
}
