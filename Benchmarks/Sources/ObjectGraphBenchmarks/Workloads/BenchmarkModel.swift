import ObjectGraphSQLite

/// The model of every ObjectGraph store the workloads use.
///
/// - `User` (`name`, `city`): the insert and save-each workloads write it.
/// - `Word` (`word`, `length`): the fixture the fetch, words, faults and count workloads read.
/// - `Recipe` (`name`, and `nameCanonical` derived as `canonical:(name)`): the search workload.
/// - `Parent` ->> `Child` (cascade): the delete workload.
enum BenchmarkModel {
    /// Builds the model.
    static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("User", attributes: [AttributeDescription("name", .string), AttributeDescription("city", .string)]),
            EntityDescription("Word", attributes: [AttributeDescription("word", .string),
                                                   AttributeDescription("length", .integer64)]),
            EntityDescription("Recipe", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("nameCanonical", .string, derivedFrom: "canonical:(name)"),
            ]),
            EntityDescription("Parent", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("children", toMany: "Child", inverse: "parent", deleteRule: .cascade),
            ]),
            EntityDescription("Child", attributes: [AttributeDescription("position", .integer64)], relationships: [
                RelationshipDescription("parent", to: "Parent", inverse: "children", isOptional: false),
            ]),
        ])
    }
}
