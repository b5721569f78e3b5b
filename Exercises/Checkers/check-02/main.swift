import ExerciseKit
import FindOrCreate
import FindOrCreateSolution

// check-02 [--solution] [--json FILE]: exercise 02's checker on the learner's file or the solution.
await CheckCommand.run(FindOrCreateCheck.self, starter: FindOrCreate.IngredientImporter(), solution: FindOrCreateSolution.IngredientImporter())
