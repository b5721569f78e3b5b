import ExerciseKit
import SearchShadow
import SearchShadowSolution

// check-04 [--solution] [--json FILE]: exercise 04's checker on the learner's file or the solution.
await CheckCommand.run(SearchShadowCheck.self, starter: SearchShadow.RecipeSearch(), solution: SearchShadowSolution.RecipeSearch())
