/// Unsaved changes to objects a predicate reaches through relationships.
///
/// The store answers a fetch from saved rows, so its answer for an unchanged object can be
/// stale when an object the predicate reads through a relationship has changed: an
/// ingredient line's quantity for `ANY ingredients.quantity > 100`, a sibling recipe's
/// minutes for `chef.recipes.@sum.prepMinutes > 80`. Such objects are found by walking back
/// from every changed object along the inverses of the predicate's relationship paths, and
/// are then matched in memory like changed objects of the fetched entity.
extension ContextCore {
    /// The chains of relationships that sort terms read through: `chef.name` on `Recipe`
    /// gives `[[chef]]`; an attribute of the fetched object itself needs none.
    static func relationshipPaths(of sortTerms: [FetchPlan.SortTerm]) -> [[RelationshipDescription]] {
        sortTerms.compactMap { term in
            guard case .attribute(_, let hops, _) = term.expression, !hops.isEmpty else { return nil }
            return hops.map(\.relationship)
        }
    }

    /// Objects of `entity` (or its sub-entities, when `includesSubentities`) that are not
    /// changed themselves but may match differently from their saved rows because of
    /// unsaved changes to objects reached through `paths` (``CheckedPredicate/relationshipPaths``).
    ///
    /// Relationship changes mark both ends as changed, so walking back from the current
    /// values of changed objects reaches both the old and the new owners.
    /// - Complexity: proportional to the changed objects times the objects on the way back;
    ///   walking back may load to-many relationships.
    func objectsAffectedByRelatedChanges(
        _ paths: [[RelationshipDescription]], entity: EntityDescription, includesSubentities: Bool
    ) -> [ManagedObject] {
        guard !paths.isEmpty else { return [] }
        var changed: [ManagedObject] = []
        for object in inserted where object.state == .inserted { changed.append(object) }
        for object in updated where object.state == .updated { changed.append(object) }
        for object in deleted where object.state == .deleted { changed.append(object) }
        guard !changed.isEmpty else { return [] }
        var seen = Set<ObjectIdentifier>()
        var result: [ManagedObject] = []
        for path in paths {
            for end in 1...path.count {
                var level = changed.filter { $0.entity.isKind(of: path[end - 1].destination) }
                for relationship in path[..<end].reversed() where !level.isEmpty {
                    let inverse = relationship.inverse!
                    var next: [ManagedObject] = []
                    var nextSeen = Set<ObjectIdentifier>()
                    for object in level where object.entity.isKind(of: inverse.entity) {
                        let owners = inverse.isToMany ? object.objects(of: inverse) : object.object(of: inverse).map { [$0] } ?? []
                        for owner in owners where nextSeen.insert(ObjectIdentifier(owner)).inserted { next.append(owner) }
                    }
                    level = next
                }
                for object in level where object.state == .clean || object.state == .fault {
                    let relevant = includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
                    if relevant, seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
                }
            }
        }
        return result
    }
}
