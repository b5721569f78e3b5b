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
        // The SQL both stores build (names, fragments, predicates, fetches), written once;
        // what differs between the databases is a dialect each store passes in.
        .target(name: "ObjectGraphSQL", dependencies: ["ObjectGraph"], swiftSettings: strict),
        // The SQLite store: the only target that calls sqlite3.
        .target(name: "ObjectGraphSQLite", dependencies: ["ObjectGraph", "ObjectGraphSQL", "CSQLite"], swiftSettings: strict),
        // The PostgreSQL store: the only target that talks to PostgresNIO.
        .target(name: "ObjectGraphPostgres",
                dependencies: ["ObjectGraph", "ObjectGraphSQL", .product(name: "PostgresNIO", package: "postgres-nio")],
                swiftSettings: strict),
        // The sample domain: knows nothing of the terminal.
        .target(name: "RecipeCatalog", dependencies: ["ObjectGraphSQLite"], swiftSettings: strict),
        // The thin interactive shell.
        .executableTarget(name: "recipes", dependencies: [
                              "RecipeCatalog", "ObjectGraphSQLite", "CLibEdit",
                              .target(name: "ObjectGraphPostgres", condition: .when(traits: ["PostgreSQL"])),
                          ],
                          swiftSettings: strict),

        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphSQL", "ObjectGraphSQLite", "ObjectGraphPostgres"],
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
