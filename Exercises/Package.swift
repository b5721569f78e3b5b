// swift-tools-version:6.1
// The teaching exercises: a package of their own, so a learner's half-edited starter never
// breaks the main build. `recipes exercise check N` builds and runs `check-NN`;
// `swift test --package-path Exercises` proves every checker tells a starter from its solution.
import PackageDescription

/// The exercises, in order: number, folder, module of the starter the learner edits.
let exercises: [(number: String, folder: String, module: String)] = [
    ("01", "01-batch-save", "BatchSave"),
    ("02", "02-find-or-create", "FindOrCreate"),
    ("03", "03-save-and-reset", "SaveAndReset"),
    ("04", "04-search-shadow", "SearchShadow"),
    ("05", "05-large-delete", "LargeDelete"),
    ("06", "06-refresh-cycles", "RefreshCycles"),
]

/// Upcoming features that keep imports honest, in the kit and the checkers (the learner's
/// files stay in plain Swift 6, with no `public import` to think about).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// What an exercise's file (starter or solution) may import.
let exerciseDependencies: [Target.Dependency] = [
    "ExerciseKit",
    .product(name: "ObjectGraph", package: "ObjectGraph"),
    .product(name: "RecipeCatalog", package: "ObjectGraph"),
]

var targets: [Target] = [
    // The checkers, the protocols the exercises implement, and the seeded data they run on.
    .target(name: "ExerciseKit",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph"),
                           .product(name: "RecipeCatalog", package: "ObjectGraph")],
            swiftSettings: strict),
    .testTarget(name: "ExerciseTests",
                dependencies: ["ExerciseKit", .product(name: "ObjectGraph", package: "ObjectGraph"),
                               .product(name: "RecipeCatalog", package: "ObjectGraph")] + exercises.flatMap { [.target(name: $0.module), .target(name: $0.module + "Solution")] },
                swiftSettings: strict),
]
for exercise in exercises {
    // The starter: the one file the learner edits.
    targets.append(.target(name: exercise.module, dependencies: exerciseDependencies, path: exercise.folder,
                           exclude: ["README.md", "hint.md"]))
    // The reference solution, kept apart.
    targets.append(.target(name: exercise.module + "Solution", dependencies: exerciseDependencies,
                           path: "Solutions/" + exercise.folder))
    // `check-NN [--solution] [--json FILE]`: runs the checker on the starter (or the solution).
    targets.append(.executableTarget(name: "check-" + exercise.number,
                                     dependencies: ["ExerciseKit", .target(name: exercise.module),
                                                    .target(name: exercise.module + "Solution")],
                                     path: "Checkers/check-" + exercise.number, swiftSettings: strict))
}

let package = Package(
    name: "Exercises",
    platforms: [.macOS(.v15)],
    products: exercises.map { .executable(name: "check-" + $0.number, targets: ["check-" + $0.number]) },
    dependencies: [.package(name: "ObjectGraph", path: "..")],
    targets: targets,
    swiftLanguageModes: [.v6]
)
