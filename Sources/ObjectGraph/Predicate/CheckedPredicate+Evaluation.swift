import Foundation

/// The in-memory evaluator: the reference semantics that the SQL compiler reproduces.
///
/// Nil follows Cocoa's two-valued logic: `==` is true when both sides are nil, false when
/// one is; `!=` is its negation; ordering, string operators and arithmetic with a nil
/// operand are false (arithmetic yields nil). Text compares by UTF-8 bytes; numbers
/// compare exactly across integers and doubles, as SQLite does.
extension CheckedPredicate {
    /// Whether `object` matches.
    /// - Complexity: proportional to the objects the predicate's key paths reach.
    func evaluate(_ object: any PredicateEvaluable) -> Bool {
        var scopes = [(any PredicateEvaluable)?](repeating: nil, count: scopeCount)
        scopes[0] = object
        return PredicateEvaluator.evaluate(root, &scopes)
    }
}

/// Walks a ``CheckedNode`` over objects bound to scopes.
package enum PredicateEvaluator {
    typealias Scopes = [(any PredicateEvaluable)?]

    static func evaluate(_ node: CheckedNode, _ scopes: inout Scopes) -> Bool {
        switch node {
        case .constant(let value): return value
        case .not(let operand): return !evaluate(operand, &scopes)
        case .and(let operands):
            for operand in operands where !evaluate(operand, &scopes) { return false }
            return true
        case .or(let operands):
            for operand in operands where evaluate(operand, &scopes) { return true }
            return false
        case .compare(let op, let options, let lhs, let rhs, let kind):
            let l = value(lhs, &scopes), r = value(rhs, &scopes)
            return compare(op, options, l, r, kind)
        case .string(let op, let options, let lhs, let rhs):
            guard case .text(let l) = value(lhs, &scopes), case .text(let r) = value(rhs, &scopes) else { return false }
            return StringMatching.matches(op, options, l, r)
        case .member(let element, let candidates, let options, let kind):
            let x = value(element, &scopes)
            return candidates.contains { compare(.equal, options, x, value($0, &scopes), kind) }
        case .quantified(let modifier, let collection, let body):
            let objects = self.objects(collection, scopes)
            let saved = scopes[collection.innerScope]
            defer { scopes[collection.innerScope] = saved }
            var found = false
            for object in objects {
                scopes[collection.innerScope] = object
                let result = evaluate(body, &scopes)
                if modifier == .all ? !result : result { found = true; break }
            }
            return modifier == .any ? found : !found
        case .identity(let reference, let ids, let matchesNil):
            guard let object = self.object(reference, scopes) else { return matchesNil }
            return ids.contains(object.evaluationObjectID)
        }
    }

    static func object(_ reference: CheckedObjectReference, _ scopes: Scopes) -> (any PredicateEvaluable)? {
        guard var object = scopes[reference.scope] else { return nil }
        for hop in reference.hops {
            let next: (any PredicateEvaluable)?
            switch hop {
            case .toOne(let relationship): next = object.evaluationObject(of: relationship)
            case .element(let relationship, let offset, let fromEnd):
                let ordered = self.ordered(object.evaluationObjects(of: relationship), by: relationship)
                guard offset < Int64(ordered.count) else { return nil }
                next = ordered[fromEnd ? ordered.count - 1 - Int(offset) : Int(offset)]
            }
            guard let next else { return nil }
            object = next
        }
        return object
    }

    /// The objects of an ordered to-many relationship in the store's order: by the order
    /// key's stored value (nil first), then saved objects by primary key, then unsaved ones
    /// in the order they were inserted.
    static func ordered(_ objects: [any PredicateEvaluable], by relationship: RelationshipDescription) -> [any PredicateEvaluable] {
        guard let key = relationship.orderKey.flatMap(relationship.destination.attribute(named:)) else { return objects }
        return objects.map { ($0, $0.evaluationValue(of: key)) }.sorted { lhs, rhs in
            let order = StoredOrdering.compare(lhs.1, rhs.1)
            if order != 0 { return order < 0 }
            let l = lhs.0.evaluationObjectID, r = rhs.0.evaluationObjectID
            return (l.isTemporary ? 1 : 0, l.key) < (r.isTemporary ? 1 : 0, r.key)
        }.map(\.0)
    }

    static func objects(_ collection: CheckedCollection, _ scopes: Scopes) -> [any PredicateEvaluable] {
        guard let owner = object(CheckedObjectReference(scope: collection.scope, hops: collection.hops), scopes) else {
            return []
        }
        return owner.evaluationObjects(of: collection.relationship)
    }

    // MARK: Values

    static func value(_ expression: CheckedExpression, _ scopes: inout Scopes) -> StoredValue {
        switch expression {
        case .constant(let value): return value
        case .attribute(let scope, let hops, let attribute):
            guard let object = object(CheckedObjectReference(scope: scope, hops: hops), scopes) else { return .null }
            return object.evaluationValue(of: attribute)
        case .arithmetic(let op, let lhs, let rhs):
            return StoredArithmetic.apply(op, value(lhs, &scopes), value(rhs, &scopes))
        case .negate(let operand):
            return StoredArithmetic.negate(value(operand, &scopes))
        case .aggregate(let function, let collection, let inner):
            let objects = self.objects(collection, scopes)
            if function == .count { return .integer(Int64(objects.count)) }
            let saved = scopes[collection.innerScope]
            defer { scopes[collection.innerScope] = saved }
            var values: [StoredValue] = []
            for object in objects {
                scopes[collection.innerScope] = object
                let v = value(inner!, &scopes)
                if !v.isNull { values.append(v) }
            }
            return StoredArithmetic.aggregate(function, values)
        case .subqueryCount(let collection, let body):
            let objects = self.objects(collection, scopes)
            let saved = scopes[collection.innerScope]
            defer { scopes[collection.innerScope] = saved }
            var count: Int64 = 0
            for object in objects {
                scopes[collection.innerScope] = object
                if evaluate(body, &scopes) { count += 1 }
            }
            return .integer(count)
        case .function(let function, let operands):
            var values: [StoredValue] = []
            for operand in operands { values.append(value(operand, &scopes)) }
            return function.apply(values)
        }
    }

    // MARK: Comparison

    /// `lhs op rhs` for `==`, `!=` and the orderings, with Cocoa's nil semantics.
    static func compare(
        _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: StoredValue, _ rhs: StoredValue, _ kind: ValueKind
    ) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            if lhs.isNull || rhs.isNull { equal = lhs.isNull && rhs.isNull }
            else { equal = StoredOrdering.compare(fold(lhs, options), fold(rhs, options)) == 0 }
            return op == .equal ? equal : !equal
        default:
            if lhs.isNull || rhs.isNull { return false }
            let order = StoredOrdering.compare(fold(lhs, options), fold(rhs, options))
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    package static func fold(_ value: StoredValue, _ options: ComparisonOptions) -> StoredValue {
        guard options.folds, case .text(let text) = value else { return value }
        return .text(text.folded(caseInsensitive: options.contains(.caseInsensitive),
                                 diacriticInsensitive: options.contains(.diacriticInsensitive)))
    }
}
