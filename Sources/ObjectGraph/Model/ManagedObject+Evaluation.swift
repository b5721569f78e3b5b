/// Managed objects are what the in-memory predicate evaluator reads: unsaved objects are
/// matched against a fetch's predicate this way.
extension ManagedObject: PredicateEvaluable {
    var evaluationEntity: EntityDescription { entity }
    var evaluationObjectID: ObjectID { objectID }
    func evaluationValue(of attribute: AttributeDescription) -> StoredValue { storedValue(of: attribute) }
    func evaluationObject(of relationship: RelationshipDescription) -> (any PredicateEvaluable)? {
        object(of: relationship)
    }
    func evaluationObjects(of relationship: RelationshipDescription) -> [any PredicateEvaluable] {
        objects(of: relationship)
    }
}
