@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL
import Foundation

/// A test-only object: attribute values and relationships held in dictionaries.
///
/// Unchecked `Sendable`: a test builds its objects before it asks anything; a
/// ``ContextPath`` then reads them on a context's queue while the test waits for it.
final class TestObject: PredicateEvaluable, @unchecked Sendable {
    let entity: EntityDescription
    let key: Int64
    var values: [String: StoredValue] = [:]
    var toOne: [String: TestObject] = [:]
    var toMany: [String: [TestObject]] = [:]

    init(_ entity: EntityDescription, key: Int64, _ values: [String: Any?] = [:]) {
        self.entity = entity
        self.key = key
        for (name, value) in values {
            let attribute = entity.attribute(named: name)!
            self.values[name] = attribute.type.storedValue(from: value)!
        }
    }

    var name: String {
        if case .text(let name)? = values["name"] { return name }
        return "#\(key)"
    }

    var evaluationEntity: EntityDescription { entity }
    /// Whether the object stands for one a context has inserted and not saved: its ID is then
    /// temporary, which orders it after saved objects with the same order key.
    var isUnsaved = false

    var evaluationObjectID: ObjectID { ObjectID(entityIndex: entity.index, key: key, temporaryTag: isUnsaved ? 1 : 0) }
    func evaluationValue(of attribute: AttributeDescription) -> StoredValue { values[attribute.name] ?? .null }
    func evaluationObject(of relationship: RelationshipDescription) -> (any PredicateEvaluable)? { toOne[relationship.name] }
    func evaluationObjects(of relationship: RelationshipDescription) -> [any PredicateEvaluable] {
        toMany[relationship.name] ?? []
    }

    /// Sets a to-one relationship and its inverse.
    func link(_ name: String, to destination: TestObject?) {
        guard let destination else { return }
        let relationship = entity.relationship(named: name)!
        toOne[name] = destination
        let inverse = relationship.inverse!
        if inverse.isToMany { destination.toMany[inverse.name, default: []].append(self) }
        else { destination.toOne[inverse.name] = self }
    }

    /// Adds to a many-to-many relationship and its inverse.
    func add(_ name: String, _ destination: TestObject) {
        let relationship = entity.relationship(named: name)!
        toMany[name, default: []].append(destination)
        destination.toMany[relationship.inverse.name, default: []].append(self)
    }
}

/// The recipe model the predicate tests run against.
///
/// `ingredients` is ordered by the lines' `position` and a chef's `recipes` by
/// `prepMinutes` (ties broken by primary key), for `FIRST`, `LAST` and `[index]`; tags are
/// an unordered many-to-many relationship.
enum RecipeModel {
    /// The model; with `canonicalShadows`, every entity also has `nameCanonical`, a
    /// canonical shadow of `name`, as an application declares it (the context path's model).
    static func make(canonicalShadows: Bool = false) -> ObjectModel {
        func named(_ extra: [AttributeDescription] = []) -> [AttributeDescription] {
            [AttributeDescription("name", .string)] + extra
                + (canonicalShadows ? [AttributeDescription("nameCanonical", .string, derivedFrom: "canonical:(name)")] : [])
        }
        return try! ObjectModel(entities: [
            EntityDescription("Chef", attributes: named(),
                              relationships: [RelationshipDescription("recipes", toMany: "Recipe", inverse: "chef",
                                                                      orderedBy: "prepMinutes")]),
            EntityDescription("Recipe", attributes: named([
                AttributeDescription("rating", .double, isOptional: true),
                AttributeDescription("prepMinutes", .integer64),
                AttributeDescription("cookMinutes", .integer32),
                AttributeDescription("published", .date, isOptional: true),
                AttributeDescription("vegetarian", .boolean),
                AttributeDescription("code", .uuid, isOptional: true),
                AttributeDescription("link", .url, isOptional: true),
                AttributeDescription("photo", .binary, isOptional: true),
            ]), relationships: [
                RelationshipDescription("chef", to: "Chef", inverse: "recipes"),
                RelationshipDescription("ingredients", toMany: "Line", inverse: "recipe", orderedBy: "position"),
                RelationshipDescription("tags", toMany: "Tag", inverse: "recipes"),
            ]),
            EntityDescription("Line", attributes: named([
                AttributeDescription("quantity", .double, isOptional: true),
                AttributeDescription("unit", .string, isOptional: true),
                AttributeDescription("position", .integer32, isOptional: true),
            ]), relationships: [RelationshipDescription("recipe", to: "Recipe", inverse: "ingredients")]),
            EntityDescription("Tag", attributes: named(),
                              relationships: [RelationshipDescription("recipes", toMany: "Recipe", inverse: "tags")]),
        ])
    }
}

/// A set of objects of one model, in memory and in an in-memory SQLite database laid out
/// as ``SchemaNaming`` says, so a predicate can run through both back ends.
///
/// Unchecked `Sendable`, as ``TestObject`` is: built first, then only read.
final class TestGraph: @unchecked Sendable {
    let model: ObjectModel
    var objects: [TestObject] = []
    private var nextKey: Int64 = 1

    init(model: ObjectModel) { self.model = model }

    @discardableResult
    func insert(_ entityName: String, _ values: [String: Any?]) -> TestObject {
        let object = TestObject(model.entity(named: entityName)!, key: nextKey, values)
        nextKey += 1
        objects.append(object)
        return object
    }

    func objects(of entityName: String) -> [TestObject] {
        let entity = model.entity(named: entityName)!
        return objects.filter { $0.entity.isKind(of: entity) }
    }

    /// Creates the tables and rows, and registers the SQL functions.
    func makeDatabase() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        try SQLFunctions.register(on: connection)
        var joinTables: Set<String> = []
        for root in model.entities where root.parent == nil {
            var columns = ["\"_pk\" INTEGER PRIMARY KEY", "\"_ent\" INTEGER NOT NULL"]
            var seen: Set<String> = []
            for entity in root.selfAndDescendants {
                for attribute in entity.storedAttributes where seen.insert(attribute.name).inserted {
                    columns.append("\(SQLIdentifier(SchemaNaming.column(for: attribute)).quoted) \(attribute.type.storageClass)")
                }
                for relationship in entity.relationships {
                    if relationship.isManyToMany {
                        let join = SchemaNaming.joinTable(for: relationship)
                        if joinTables.insert(join.table).inserted {
                            try connection.execute("CREATE TABLE \(SQLIdentifier(join.table).quoted) (\"_source\" INTEGER, \"_destination\" INTEGER)")
                        }
                        continue
                    }
                    guard !relationship.isToMany, seen.insert(relationship.name).inserted else { continue }
                    columns.append("\(SQLIdentifier(SchemaNaming.column(for: relationship)).quoted) INTEGER")
                    if let entityColumn = SchemaNaming.entityColumn(for: relationship) {
                        columns.append("\(SQLIdentifier(entityColumn).quoted) INTEGER")
                    }
                }
            }
            try connection.execute("CREATE TABLE \(SQLIdentifier(root.name).quoted) (\(columns.joined(separator: ", ")))")
            try connection.execute("CREATE INDEX \(SQLIdentifier("idx_" + root.name + "_name").quoted) ON \(SQLIdentifier(root.name).quoted) (\"name\")")
        }
        for object in objects {
            var names = ["_pk", "_ent"]
            var values: [StoredValue] = [.integer(object.key), .integer(Int64(object.entity.index))]
            for attribute in object.entity.storedAttributes {
                names.append(attribute.name)
                values.append(object.values[attribute.name] ?? .null)
            }
            for relationship in object.entity.relationships where !relationship.isToMany {
                names.append(relationship.name)
                let destination = object.toOne[relationship.name]
                values.append(destination.map { .integer($0.key) } ?? .null)
                if let entityColumn = SchemaNaming.entityColumn(for: relationship) {
                    names.append(entityColumn)
                    values.append(destination.map { .integer(Int64($0.entity.index)) } ?? .null)
                }
            }
            let table = SchemaNaming.table(for: object.entity)
            let columnList = names.map { SQLIdentifier($0).quoted }.joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            try connection.rows("INSERT INTO \(SQLIdentifier(table).quoted) (\(columnList)) VALUES (\(placeholders))", values)
            for relationship in object.entity.relationships where relationship.isManyToMany {
                let join = SchemaNaming.joinTable(for: relationship)
                guard join.sourceColumn == "_source" else { continue }  // the other side inserts the pair
                for destination in object.toMany[relationship.name] ?? [] {
                    try connection.rows("INSERT INTO \(SQLIdentifier(join.table).quoted) (\"_source\", \"_destination\") VALUES (?, ?)",
                                        [.integer(object.key), .integer(destination.key)])
                }
            }
        }
        return connection
    }
}

/// Runs a predicate through both back ends.
struct BothBackEnds {
    let graph: TestGraph
    let connection: SQLiteConnection

    init(_ graph: TestGraph) throws {
        self.graph = graph
        self.connection = try graph.makeDatabase()
    }

    /// The keys of matching objects, in memory and in SQL.
    func run(_ predicate: FetchPredicate, on entityName: String) throws -> (memory: Set<Int64>, sql: Set<Int64>, sqlText: String) {
        let entity = graph.model.entity(named: entityName)!
        let checked = try predicate.checked(for: entity)
        let memory = Set(graph.objects(of: entityName).filter { checked.evaluate($0) }.map(\.key))
        var fragment = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
        if let restriction = SchemaNaming.entityRestriction(for: entity, alias: "t0") {
            fragment = "(\(fragment)) AND \(restriction)"
        }
        let sql = "SELECT t0._pk FROM \(SQLIdentifier(SchemaNaming.table(for: entity)).quoted) AS t0 WHERE \(fragment.sql)"
        let rows = try connection.rows(sql, fragment.arguments)
        let keys = Set(rows.compactMap { row -> Int64? in if case .integer(let key) = row[0] { return key } else { return nil } })
        return (memory, keys, sql)
    }
}
