// swift-tools-version:6.1
// Release-mode benchmarks, kept in their own package so `make test` never builds them.
// Run with `make bench` from the repository root.
import PackageDescription

let package = Package(
    name: "ObjectGraphBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ObjectGraph", path: ".."),
        // The peer: GRDB records over the same system SQLite library.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The PostgreSQL baseline's client: the version the PostgreSQL store is built on.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // The raw-C baseline talks to SQLite directly: that is what makes it a baseline.
        .systemLibrary(name: "CSQLiteBaseline", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "ObjectGraphBenchmarks",
            dependencies: [.product(name: "ObjectGraph", package: "ObjectGraph"),
                           .product(name: "RecipeCatalog", package: "ObjectGraph"), "CSQLiteBaseline",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "ObjectGraphPostgres", package: "ObjectGraph"),
                           .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    ],
    swiftLanguageModes: [.v6]
)
