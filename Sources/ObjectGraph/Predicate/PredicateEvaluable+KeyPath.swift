/// Key-path access for sorting in memory.
extension PredicateEvaluable {
    /// The value at a key path of attribute names through to-one relationships
    /// (`["chef", "name"]`); ``StoredValue/null`` when a relationship on the way is nil or a
    /// key is not an attribute or to-one relationship. The in-memory twin of
    /// ``CheckedExpression/attributePath(_:of:)`` as the SQLite store compiles it.
    func value(atKeyPath path: [String]) -> StoredValue {
        var object: any PredicateEvaluable = self
        for (index, key) in path.enumerated() {
            let entity = object.evaluationEntity
            if index == path.count - 1, let attribute = entity.attribute(named: key) {
                return object.evaluationValue(of: attribute)
            }
            guard let relationship = entity.relationship(named: key), !relationship.isToMany,
                  let next = object.evaluationObject(of: relationship) else { return .null }
            object = next
        }
        return .null
    }
}
