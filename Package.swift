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
        .library(name: "ObjectGraphPostgres", targets: ["ObjectGraphPostgres"]),
        .library(name: "RecipeCatalog", targets: ["RecipeCatalog"]),
        .executable(name: "recipes", targets: ["recipes"]),
    ],
    // `PostgreSQL` builds the PostgreSQL store into the shell (`make run-postgres`, `make test`);
    // off by default, so `make run` never waits for PostgresNIO's first build.
    traits: [.trait(name: "PostgreSQL", description: "The shell opens postgres:// catalogues.")],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // C libraries enter through system-library targets.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibEdit", providers: [.apt(["libedit-dev"])]),

        // The framework: knows nothing of recipes, nor of SQL.
        .target(name: "ObjectGraph", swiftSettings: strict),
        // The SQLite store: the only target that calls sqlite3 or writes SQL.
        .target(name: "ObjectGraphSQLite", dependencies: ["ObjectGraph", "CSQLite"], swiftSettings: strict),
        // The PostgreSQL store: the only other target that writes SQL.
        .target(name: "ObjectGraphPostgres",
                dependencies: ["ObjectGraph", .product(name: "PostgresNIO", package: "postgres-nio")],
                swiftSettings: strict),
        // The sample domain: knows nothing of the terminal.
        .target(name: "RecipeCatalog", dependencies: ["ObjectGraphSQLite"], swiftSettings: strict),
        // The thin interactive shell.
        .executableTarget(name: "recipes", dependencies: [
                              "RecipeCatalog", "ObjectGraphSQLite", "CLibEdit",
                              .target(name: "ObjectGraphPostgres", condition: .when(traits: ["PostgreSQL"])),
                          ],
                          swiftSettings: strict),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphSQLite", "ObjectGraphPostgres"],
                    swiftSettings: strict),
        .testTarget(name: "RecipeCatalogTests", dependencies: ["RecipeCatalog", "ObjectGraphSQLite"],
                    swiftSettings: strict),
        .testTarget(name: "RecipesCLITests", dependencies: ["recipes", "ReliabilityProbe"], swiftSettings: strict),
        // The reliability tests' worker: what several processes do at once on one store.
        .executableTarget(name: "ReliabilityProbe", dependencies: ["RecipeCatalog"], path: "Tests/ReliabilityProbe",
                          swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
