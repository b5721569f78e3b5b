import Foundation
import Glibc
import RecipeCatalog

// The entry point: `RecipesProgram` does the wiring; this file names the command layer and
// the generator.
let status = await RecipesProgram.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    makeHandler: { invocation in try await RecipeShell.open(invocation, output: StandardStreams()) },
    generate: { count, seed, output in try await GenerateCommand.run(count: count, seed: seed, output: output) },
    benchStacks: { count, plot, only in
        try await BenchStacksCommand.run(count: count, plot: plot, only: only.flatMap(StacksExperiment.Strategy.init(rawValue:)))
    })
exit(StandardStreams.exitStatus(after: status))
