import ExerciseKit
import SaveAndReset
import SaveAndResetSolution

// check-03 [--solution] [--json FILE]: exercise 03's checker on the learner's file or the solution.
await CheckCommand.run(SaveAndResetCheck.self, starter: SaveAndReset.BatchImporter(), solution: SaveAndResetSolution.BatchImporter())
