// What the README's and the DocC articles' examples take as given: the reader's own model,
// coordinator, context and data. Only type-checked (Scripts/docs.sh), never run.
import Foundation
import ObjectGraphSQLite

@MainActor var model: ObjectModel { fatalError() }
@MainActor var coordinator: PersistentStoreCoordinator { fatalError() }
@MainActor var context: MainContext { fatalError() }
@MainActor var controller: FetchedResultsController { fatalError() }
@MainActor var chef: ManagedObject { fatalError() }
var path: String { fatalError() }
var selectedIDs: [ObjectID] { fatalError() }
var version1: ObjectModel { fatalError() }
var version2: ObjectModel { fatalError() }
var customMapping: MappingModel { fatalError() }
enum NotesModel { static func version1() throws -> ObjectModel { fatalError() } }

/// Batching.md: the records of an import and how one is inserted.
struct Record: Sendable {}
var records: [Record] { fatalError() }
func insert(_ record: Record, into context: isolated PrivateContext) throws {}

// What the doc comments' examples take as given, beyond the above.
@MainActor var recipe: ManagedObject { fatalError() }
@MainActor var objects: [ManagedObject] { fatalError() }
@MainActor var request: FetchRequest { get { fatalError() } set {} }
@MainActor var importer: PrivateContext { fatalError() }
var store: SQLiteStore { fatalError() }
var chefEntity: EntityDescription { fatalError() }
var recipeEntity: EntityDescription { fatalError() }
var entity: EntityDescription { fatalError() }
var assignments: [(key: String, text: String)] { fatalError() }
var tagMapping: EntityMapping { fatalError() }
var file: AtomicStoreWriter { fatalError() }
var bytes: [UInt8] { fatalError() }
@MainActor func edit(_ context: MainContext) throws {}
struct ChefPolicy: EntityMigrationPolicy {}
struct NotePolicy: EntityMigrationPolicy {}
