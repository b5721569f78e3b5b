/// Replaces free `$variables` in a tree with values (``FetchPredicate/substituting(_:)``).
struct PredicateSubstitution {
    let variables: [String: any Sendable]
    let source: String

    mutating func apply(_ node: PredicateNode, bound: Set<String>) throws(PredicateSyntaxError) -> PredicateNode {
        switch node {
        case .constant: return node
        case .not(let operand, let span): return .not(try apply(operand, bound: bound), span)
        case .and(let operands):
            var result: [PredicateNode] = []
            for operand in operands { result.append(try apply(operand, bound: bound)) }
            return .and(result)
        case .or(let operands):
            var result: [PredicateNode] = []
            for operand in operands { result.append(try apply(operand, bound: bound)) }
            return .or(result)
        case .comparison(var comparison):
            comparison.lhs = try apply(comparison.lhs, bound: bound)
            comparison.rhs = try apply(comparison.rhs, bound: bound)
            return .comparison(comparison)
        }
    }

    mutating func apply(_ expression: PredicateExpression, bound: Set<String>) throws(PredicateSyntaxError) -> PredicateExpression {
        switch expression {
        case .value, .evaluatedObject: return expression
        case .variable(let name, let span):
            guard !bound.contains(name), let value = variables[name] else { return expression }
            guard let replacement = PredicateArgument.expression(for: value as Any?, span: span) else {
                throw PredicateSyntaxError(.argument, "unsupported value of type \(type(of: value)) for $\(name)",
                    note: "pass a String, number, Bool, Date, Data, UUID, URL, ObjectID, nil, or an array of those",
                    source: source, span: span)
            }
            return replacement
        case .keyPath(let base, let components, let span):
            guard let base else { return expression }
            let replaced = try apply(base, bound: bound)
            if case .value = replaced, case .variable(let name, _) = base {
                throw PredicateSyntaxError(.argument, "$\(name) is used as a key path base and cannot be a value",
                                           source: source, span: span)
            }
            return .keyPath(base: replaced, components, span)
        case .aggregate(let elements, let span):
            var result: [PredicateExpression] = []
            for element in elements { result.append(try apply(element, bound: bound)) }
            return .aggregate(result, span)
        case .arithmetic(let op, let lhs, let rhs, let span):
            return .arithmetic(op, try apply(lhs, bound: bound), try apply(rhs, bound: bound), span)
        case .negate(let operand, let span): return .negate(try apply(operand, bound: bound), span)
        case .subquery(let collection, let variable, let predicate, let span):
            return .subquery(collection: try apply(collection, bound: bound), variable: variable,
                             predicate: try apply(predicate, bound: bound.union([variable])), span)
        case .index(let base, let selector, let span):
            guard case .position(let position) = selector else { return .index(try apply(base, bound: bound), selector, span) }
            return .index(try apply(base, bound: bound), .position(try apply(position, bound: bound)), span)
        case .function(let receiver, let name, let arguments, let span):
            var applied: [PredicateExpression] = []
            for argument in arguments { applied.append(try apply(argument, bound: bound)) }
            return .function(receiver: try apply(receiver, bound: bound), name: name, arguments: applied, span)
        }
    }

    static func collectVariables(_ node: PredicateNode, bound: Set<String>, into names: inout Set<String>) {
        switch node {
        case .constant: break
        case .not(let operand, _): collectVariables(operand, bound: bound, into: &names)
        case .and(let operands), .or(let operands):
            for operand in operands { collectVariables(operand, bound: bound, into: &names) }
        case .comparison(let c):
            collectVariables(c.lhs, bound: bound, into: &names)
            collectVariables(c.rhs, bound: bound, into: &names)
        }
    }

    static func collectVariables(_ expression: PredicateExpression, bound: Set<String>, into names: inout Set<String>) {
        switch expression {
        case .value, .evaluatedObject: break
        case .variable(let name, _): if !bound.contains(name) { names.insert(name) }
        case .keyPath(let base, _, _): if let base { collectVariables(base, bound: bound, into: &names) }
        case .aggregate(let elements, _): for e in elements { collectVariables(e, bound: bound, into: &names) }
        case .arithmetic(_, let lhs, let rhs, _):
            collectVariables(lhs, bound: bound, into: &names)
            collectVariables(rhs, bound: bound, into: &names)
        case .negate(let operand, _): collectVariables(operand, bound: bound, into: &names)
        case .subquery(let collection, let variable, let predicate, _):
            collectVariables(collection, bound: bound, into: &names)
            collectVariables(predicate, bound: bound.union([variable]), into: &names)
        case .index(let base, let selector, _):
            collectVariables(base, bound: bound, into: &names)
            if case .position(let position) = selector { collectVariables(position, bound: bound, into: &names) }
        case .function(let receiver, _, let arguments, _):
            for operand in [receiver] + arguments { collectVariables(operand, bound: bound, into: &names) }
        }
    }
}
