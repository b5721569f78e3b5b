import Glibc

// The entry point. `RecipesProgram` does the work; this file only names the pieces that
// other layers provide. Replace `EchoHandler` with the recipe command layer when it lands.
let status = await RecipesProgram.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    makeHandler: { invocation in EchoHandler(invocation: invocation) },
    generate: { _, _, _ in throw CommandError("'recipes generate' is not available yet") })
exit(status)
