extension FetchPredicate {
    /// Rewrites case- and diacritic-insensitive comparisons on attributes that have a
    /// canonical shadow into plain (`[n]`) comparisons on the shadow, with the constant folded
    /// the same way.
    ///
    /// `name CONTAINS[cd] "creme"` on an entity whose `nameCanonical` is derived from `name`
    /// becomes `nameCanonical CONTAINS[n] "creme"`: the same matches, without folding every
    /// row at query time, and `BEGINSWITH` and `==` can then use the shadow's index.
    /// Comparisons that fold only case or only diacritics are left alone: the shadow folds both.
    func rewritingCanonicalShadows(for entity: EntityDescription) -> FetchPredicate {
        var copy = self
        copy.node = Self.rewrite(node, entity: entity)
        return copy
    }

    private static func rewrite(_ node: PredicateNode, entity: EntityDescription) -> PredicateNode {
        switch node {
        case .constant: return node
        case .not(let inner, let span): return .not(rewrite(inner, entity: entity), span)
        case .and(let parts): return .and(parts.map { rewrite($0, entity: entity) })
        case .or(let parts): return .or(parts.map { rewrite($0, entity: entity) })
        case .comparison(var comparison):
            guard comparison.modifier == .direct,
                  [.equal, .beginsWith, .contains].contains(comparison.op),
                  comparison.options.contains(.caseInsensitive),
                  comparison.options.contains(.diacriticInsensitive),
                  case .keyPath(nil, let path, let keySpan) = comparison.lhs, path.count == 1,
                  case .value(.string(let text), let valueSpan) = comparison.rhs,
                  // A shadow a sub-entity declares is not a column of the entity's other rows.
                  let shadow = entity.attribute(named: path[0])?.derivedTargets.first(where: { target in
                      guard case .canonical? = target.derivation else { return false }
                      return entity.attribute(named: target.name) === target
                  }) else { return node }
            comparison.lhs = .keyPath(base: nil, [shadow.name], keySpan)
            comparison.rhs = .value(.string(text.canonicalFolded()), valueSpan)
            comparison.options = [.normalized]
            return .comparison(comparison)
        }
    }
}
