import ExerciseKit
import LargeDelete
import LargeDeleteSolution

// check-05 [--solution] [--json FILE]: exercise 05's checker on the learner's file or the solution.
await CheckCommand.run(LargeDeleteCheck.self, starter: LargeDelete.RecipeCleanup(), solution: LargeDeleteSolution.RecipeCleanup())
