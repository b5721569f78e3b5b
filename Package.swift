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
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "RecipeCatalog", targets: ["RecipeCatalog"]),
        .executable(name: "recipes", targets: ["recipes"]),
    ],
    targets: [
        // C libraries enter through system-library targets.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibEdit", providers: [.apt(["libedit-dev"])]),

        // The framework: knows nothing of recipes.
        .target(name: "ObjectGraph", dependencies: ["CSQLite"], swiftSettings: strict),
        // The sample domain: knows nothing of the terminal.
        .target(name: "RecipeCatalog", dependencies: ["ObjectGraph"], swiftSettings: strict),
        // The thin interactive shell.
        .executableTarget(name: "recipes", dependencies: ["RecipeCatalog", "CLibEdit"],
                          swiftSettings: strict),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph"], swiftSettings: strict),
        .testTarget(name: "RecipeCatalogTests", dependencies: ["RecipeCatalog"],
                    swiftSettings: strict),
        .testTarget(name: "RecipesCLITests", dependencies: ["recipes"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
