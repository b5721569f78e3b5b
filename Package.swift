// swift-tools-version:6.1
import PackageDescription

/// Upcoming features that keep imports honest, on every target.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ObjectGraph",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph", "ObjectGraphSQLite"]),
        .library(name: "RecipeCatalog", targets: ["RecipeCatalog"]),
        .executable(name: "recipes", targets: ["recipes"]),
    ],
    targets: [
        // C libraries enter through system-library targets.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibEdit", providers: [.apt(["libedit-dev"])]),

        // The framework: knows nothing of recipes, nor of SQL.
        .target(name: "ObjectGraph", swiftSettings: strict),
        // The SQLite store: the only target that calls sqlite3 or writes SQL.
        .target(name: "ObjectGraphSQLite", dependencies: ["ObjectGraph", "CSQLite"], swiftSettings: strict),
        // The sample domain: knows nothing of the terminal.
        .target(name: "RecipeCatalog", dependencies: ["ObjectGraphSQLite"], swiftSettings: strict),
        // The thin interactive shell.
        .executableTarget(name: "recipes", dependencies: ["RecipeCatalog", "ObjectGraphSQLite", "CLibEdit"],
                          swiftSettings: strict),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphSQLite"], swiftSettings: strict),
        .testTarget(name: "RecipeCatalogTests", dependencies: ["RecipeCatalog", "ObjectGraphSQLite"],
                    swiftSettings: strict),
        .testTarget(name: "RecipesCLITests", dependencies: ["recipes", "ReliabilityProbe"], swiftSettings: strict),
        // The reliability tests' worker: what several processes do at once on one store.
        .executableTarget(name: "ReliabilityProbe", dependencies: ["RecipeCatalog"], path: "Tests/ReliabilityProbe",
                          swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
