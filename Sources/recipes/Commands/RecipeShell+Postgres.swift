import Foundation
import ObjectGraph
import ObjectGraphSQLite
import RecipeCatalog
#if PostgreSQL
import ObjectGraphPostgres
#endif

/// `recipes postgres://USER@HOST:PORT/DB`: a catalogue in a PostgreSQL database (the
/// password comes from `PGPASSWORD`, never from the command line).
extension RecipeShell {
    /// Whether `path` names a PostgreSQL catalogue rather than a file (a URL's scheme ignores case).
    static func isPostgresURL(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Refuses a store path that starts like a URL but not a PostgreSQL one (`postgress://…`,
    /// `postgres:/…`, `http://…`): taken for a file, it would fail naming a folder `postgress:`
    /// that does not exist. Only the scheme is quoted, since the rest may hold a password.
    /// A path whose first folder really is called that way is left alone.
    static func refuseMisspelledURL(_ path: String) throws {
        let scheme = path.prefix { $0 != ":" && $0 != "/" }
        guard path.dropFirst(scheme.count).hasPrefix(":/"), let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
              !FileManager.default.fileExists(atPath: scheme + ":") else { return }
        throw CommandError("'\(scheme):' is not a kind of store: name a store file, or a PostgreSQL catalogue as "
                           + "postgres://USER@HOST:PORT/DB")
    }

    /// Opens the PostgreSQL catalogue at `url`; with `RECIPES_POSTGRES_SAMPLE=1` (set by
    /// `make run-postgres`), an empty one is filled with the sample catalogue first.
    static func openPostgres(_ url: String, output: any ShellOutput) async throws -> (Catalog, String) {
        #if PostgreSQL
        let location = try PostgresLocation(url: url)
        let catalog = try Catalog.open(type: .postgres) { try $0.addPostgresStore(at: location) }
        let environment = ProcessInfo.processInfo.environment
        // Only an empty catalogue: one that already holds recipes (imported before) keeps them alone.
        if environment["RECIPES_POSTGRES_SAMPLE"] == "1", catalog.store.metadata[Catalog.sampleDataKey] == nil,
           try MainContext(coordinator: catalog.coordinator).count(for: FetchRequest(entityName: CatalogModel.recipe)) == 0 {
            guard let sample = Catalog.sampleDataDirectory else {
                throw CommandError("the sample data was not found; set RECIPES_SAMPLE_DATA to the SampleData folder")
            }
            if let report = try await catalog.loadSampleDataOnce(from: sample) {
                output.printErrorLine("Created the sample catalogue in \(location): \(report.imported) recipes.")
            }
        }
        return (catalog, location.description)
        #else
        throw CommandError("this recipes was built without PostgreSQL: run it with 'make run-postgres ARGS=…' or build it with 'swift build --traits PostgreSQL'")
        #endif
    }
}

#if PostgreSQL
extension PersistentStoreType {
    /// A PostgreSQL database (opened by URL, never recognized from a file).
    static let postgres = PersistentStoreType(name: "postgres", recognizes: { _ in false }) { model, url in
        try PostgresStore(location: PostgresLocation(url: url), model: model)
    }
}
#endif
