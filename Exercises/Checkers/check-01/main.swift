import ExerciseKit
import BatchSave
import BatchSaveSolution

// check-01 [--solution] [--json FILE]: exercise 01's checker on the learner's file or the solution.
await CheckCommand.run(BatchSaveCheck.self, starter: BatchSave.BatchSaver(), solution: BatchSaveSolution.BatchSaver())
