/// Something a predicate can be evaluated against in memory: a managed object, or a row
/// of an in-memory store.
///
/// The in-memory evaluator reads attributes and follows relationships through this
/// protocol only, so the same predicate works on unsaved objects and on stored rows.
protocol PredicateEvaluable {
    /// The object's entity.
    var evaluationEntity: EntityDescription { get }
    /// The object's ID, for `SELF == %@` and `SELF IN %@`.
    var evaluationObjectID: ObjectID { get }
    /// The stored value of one attribute of the object's entity.
    func evaluationValue(of attribute: AttributeDescription) -> StoredValue
    /// The destination of a to-one relationship, or nil.
    func evaluationObject(of relationship: RelationshipDescription) -> (any PredicateEvaluable)?
    /// The destinations of a to-many relationship.
    func evaluationObjects(of relationship: RelationshipDescription) -> [any PredicateEvaluable]
}
