// A test-only program for the reliability tests: the work several processes do at once on
// one catalogue file, through the framework, each printing one line of counts.
//
//   ReliabilityProbe increment STORE SOURCE_ID COUNT
//       adds 1 to the recipe's servings COUNT times, one save each; a save that meets
//       another process's change (mergeConflict) is refreshed and retried
//   ReliabilityProbe set STORE SOURCE_ID KEY COUNT
//       sets the recipe's integer KEY to 1…COUNT, one save each, on an object it never
//       refreshes: the merge policy inMemoryWins keeps the other processes' other keys
//   ReliabilityProbe write-pairs STORE COUNT
//       COUNT saves, save k setting servings of the first 20 recipes and the quantity of
//       each of their lines to k
//   ReliabilityProbe read-pairs STORE COUNT
//       COUNT fetches of those recipes with their lines prefetched, each checked to show
//       one save: exits 1 on a mix
//   ReliabilityProbe save-one STORE TIMEOUT_MS
//       inserts a chef and saves it, waiting up to TIMEOUT_MS for another process's lock
//       (an XML store when STORE ends in .xml: its lockTimeout)
import Foundation
import ObjectGraphSQLite
import RecipeCatalog

/// Opens the catalogue at `path` with a busy timeout.
@MainActor
func open(_ path: String, busyTimeout: Duration = .seconds(30)) throws -> MainContext {
    let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
    var options = SQLiteStore.Options()
    options.busyTimeout = busyTimeout
    try coordinator.addStore(at: path, options: options)
    return MainContext(coordinator: coordinator)
}

@MainActor
func recipe(_ sourceID: String, in context: MainContext) throws -> Recipe {
    let request = FetchRequest(entityName: CatalogModel.recipe, predicate: try FetchPredicate("sourceID == %@", sourceID))
    guard let recipe = try context.fetch(request).first as? Recipe else {
        throw ObjectGraphError(.objectNotFound, "no recipe with sourceID \(sourceID)")
    }
    return recipe
}

/// The first 20 recipes by source ID, with their lines, in one fetch.
@MainActor
func pairedRecipes(in context: MainContext) throws -> [Recipe] {
    var request = FetchRequest(entityName: CatalogModel.recipe, sortKeys: [SortKey("sourceID")])
    request.fetchLimit = 20
    request.returnsObjectsAsFaults = false
    request.relationshipKeyPathsForPrefetching = ["ingredients"]
    return try context.fetch(request).compactMap { $0 as? Recipe }
}

@MainActor
func run(_ arguments: [String]) throws -> String {
    switch (arguments.first, arguments.count) {
    case ("increment", 4):
        let context = try open(arguments[1])
        let counter = try recipe(arguments[2], in: context)
        var done = 0, conflicts = 0
        while done < Int(arguments[3])! {
            counter.servings = (counter.servings ?? 0) + 1
            do {
                try context.save()
                done += 1
            } catch let error as ObjectGraphError where error.code == .mergeConflict {
                conflicts += 1
                context.rollback()
                context.refresh(counter, mergeChanges: false)
            }
        }
        return "incremented \(done) times, \(conflicts) conflicts retried"
    case ("set", 5):
        let context = try open(arguments[1])
        context.mergePolicy = .inMemoryWins
        let target = try recipe(arguments[2], in: context)
        for value in 1...Int(arguments[4])! {
            target[arguments[3]] = value
            try context.save()
        }
        return "set \(arguments[3]) \(arguments[4]) times"
    case ("write-pairs", 3):
        let context = try open(arguments[1])
        context.mergePolicy = .overwrite
        for value in 1...Int(arguments[2])! {
            for recipe in try pairedRecipes(in: context) {
                recipe.servings = value
                for line in recipe.ingredients { line.quantity = Double(value) }
            }
            try context.save()
            context.reset()
        }
        return "wrote \(arguments[2]) saves"
    case ("read-pairs", 3):
        let context = try open(arguments[1])
        var values: Set<Int> = []
        for read in 1...Int(arguments[2])! {
            let recipes = try pairedRecipes(in: context)
            let servings = Set(recipes.map { $0.servings ?? -1 })
            let quantities = Set(recipes.flatMap { $0.ingredients.map { Int($0.quantity ?? -1) } })
            guard servings.count == 1, quantities.isSubset(of: servings) else {
                throw ObjectGraphError(.validation, "read \(read) saw a mix: servings \(servings.sorted()), quantities \(quantities.sorted())")
            }
            values.formUnion(servings)
            context.reset()
        }
        return "read \(arguments[2]) times, \(values.count) different saves seen, no mix"
    case ("save-one", 3):
        let timeout = Duration.milliseconds(Int(arguments[2])!)
        let context: MainContext
        if arguments[1].hasSuffix(".xml") {
            let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
            try coordinator.addStore(XMLStore.self, at: arguments[1]).lockTimeout = timeout
            context = MainContext(coordinator: coordinator)
        } else {
            context = try open(arguments[1], busyTimeout: timeout)
        }
        let chef = context.insert(context.model.entity(named: CatalogModel.chef)!) as! Chef
        chef.name = "Probe \(ProcessInfo.processInfo.processIdentifier)"
        try context.save()
        return "saved"
    default:
        throw ObjectGraphError(.invalidValue, "usage: see Tests/ReliabilityProbe/main.swift")
    }
}

do {
    print(try MainActor.assumeIsolated { try run(Array(CommandLine.arguments.dropFirst())) })
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
