import ExerciseKit
import RefreshCycles
import RefreshCyclesSolution

// check-06 [--solution] [--json FILE]: exercise 06's checker on the learner's file or the solution.
await CheckCommand.run(RefreshCyclesCheck.self, starter: RefreshCycles.UsageCounter(), solution: RefreshCyclesSolution.UsageCounter())
