/// The relationships a predicate reads through, for finding the objects whose match an
/// unsaved change elsewhere in the graph can alter.
extension CheckedPredicate {
    /// Every chain of relationships from the evaluated object that the predicate follows to
    /// read a value or an object: `chef.recipes.@sum.prepMinutes` on `Recipe` gives
    /// `[[chef, recipes]]` (and its prefix `[chef]`). Attributes of the evaluated object
    /// itself need no path. Duplicates are removed; the order is unspecified.
    var relationshipPaths: [[RelationshipDescription]] {
        var collector = PathCollector(scopeCount: scopeCount)
        collector.node(root)
        return collector.paths
    }
}

/// Walks a checked tree, tracking the path from the evaluated object to every scope.
private struct PathCollector {
    var scopePaths: [[RelationshipDescription]]
    var paths: [[RelationshipDescription]] = []

    init(scopeCount: Int) { scopePaths = Array(repeating: [], count: scopeCount) }

    mutating func add(_ path: [RelationshipDescription]) {
        guard !path.isEmpty, !paths.contains(where: { $0.elementsEqual(path, by: ===) }) else { return }
        paths.append(path)
    }

    mutating func reference(_ reference: CheckedObjectReference) {
        add(scopePaths[reference.scope] + reference.hops.map(\.relationship))
    }

    mutating func collection(_ collection: CheckedCollection) {
        let path = scopePaths[collection.scope] + collection.hops.map(\.relationship) + [collection.relationship]
        scopePaths[collection.innerScope] = path
        add(path)
    }

    mutating func node(_ node: CheckedNode) {
        switch node {
        case .constant: break
        case .not(let operand): self.node(operand)
        case .and(let operands), .or(let operands): for operand in operands { self.node(operand) }
        case .compare(_, _, let lhs, let rhs, _), .string(_, _, let lhs, let rhs):
            expression(lhs)
            expression(rhs)
        case .member(let element, let candidates, _, _):
            expression(element)
            for candidate in candidates { expression(candidate) }
        case .quantified(_, let collection, let body):
            self.collection(collection)
            self.node(body)
        case .identity(let reference, _, _): self.reference(reference)
        }
    }

    mutating func expression(_ expression: CheckedExpression) {
        switch expression {
        case .constant: break
        case .attribute(let scope, let hops, _): reference(CheckedObjectReference(scope: scope, hops: hops))
        case .arithmetic(_, let lhs, let rhs):
            self.expression(lhs)
            self.expression(rhs)
        case .negate(let operand): self.expression(operand)
        case .aggregate(_, let collection, let inner):
            self.collection(collection)
            if let inner { self.expression(inner) }
        case .subqueryCount(let collection, let body):
            self.collection(collection)
            node(body)
        case .function(_, let operands):
            for operand in operands { self.expression(operand) }
        }
    }
}
