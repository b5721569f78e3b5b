/// Resolution of operands: key paths, variables, `SELF`, lists, arithmetic, `SUBQUERY`.
extension PredicateTypeChecker {
    mutating func operand(_ expression: PredicateExpression, _ slot: inout QuantifierSlot) throws(PredicateSyntaxError) -> Checked {
        let span = expression.span
        switch expression {
        case .value(let value, _): return Checked(operand: .value(value), span: span)
        case .evaluatedObject: return Checked(operand: .object(CheckedObjectReference(scope: 0, hops: []), entity), span: span)
        case .variable(let name, _):
            let scope = try variableScope(name, span: span)
            return Checked(operand: .object(CheckedObjectReference(scope: scope, hops: []), scopeEntities[scope]), span: span)
        case .aggregate(let elements, _):
            var items: [Checked] = []
            var closed = QuantifierSlot(isAllowed: false)
            for element in elements { items.append(try operand(element, &closed)) }
            return Checked(operand: .list(items), span: span)
        case .arithmetic(let op, let lhs, let rhs, _):
            let l = try numeric(try operand(lhs, &slot))
            let r = try numeric(try operand(rhs, &slot))
            return Checked(operand: .scalar(.arithmetic(op, l, r), .numeric), span: span)
        case .negate(let inner, _):
            return Checked(operand: .scalar(.negate(try numeric(try operand(inner, &slot))), .numeric), span: span)
        case .subquery:
            throw error(.type, "SUBQUERY(…) is a collection of objects, not a value", at: span,
                        note: "count its objects with SUBQUERY(…).@count")
        case .index(let base, let selector, _):
            let enclosingPath = beginPath()
            defer { activePath = enclosingPath }
            return try index(base, selector, span: span, &slot)
        case .function(let receiver, let name, let arguments, _):
            return try function(receiver, name, arguments, span: span, &slot)
        case .keyPath(let base, let components, _):
            let enclosingPath = beginPath()
            defer { activePath = enclosingPath }
            switch base {
            case .index?:
                let object = try operand(base!, &slot)
                guard case .object(let reference, let entity) = object.operand else {
                    throw error(.type, "only objects have keys; this is a value", at: span)
                }
                return try walk(from: reference, entity: entity, components, span: span, &slot)
            case nil, .evaluatedObject?:
                return try walk(scope: 0, components, span: span, &slot)
            case .variable(let name, let variableSpan)?:
                return try walk(scope: try variableScope(name, span: variableSpan), components, span: span, &slot)
            case .subquery(let collection, let variable, let predicate, let subquerySpan)?:
                guard components == ["@count"] else {
                    throw error(.type, "a SUBQUERY can only be counted", at: span, note: "write SUBQUERY(…).@count")
                }
                let (checkedCollection, body) = try subquery(collection, variable, predicate, span: subquerySpan)
                return Checked(operand: .scalar(.subqueryCount(checkedCollection, body), .numeric), span: span)
            default:
                throw error(.type, "only objects have keys; this is a value", at: span)
            }
        }
    }

    /// Starts resolving a key path unless one is already being resolved; returns the
    /// enclosing one, to restore.
    private mutating func beginPath() -> Int? {
        let enclosing = activePath
        if activePath == nil {
            pathCounter += 1
            activePath = pathCounter
        }
        return enclosing
    }

    /// `collection[FIRST]`, `[LAST]`, `[SIZE]` or `[n]`.
    private mutating func index(
        _ base: PredicateExpression, _ selector: IndexSelector, span: SourceSpan, _ slot: inout QuantifierSlot
    ) throws(PredicateSyntaxError) -> Checked {
        let selectorText: String
        switch selector {
        case .first: selectorText = "[FIRST]"
        case .last: selectorText = "[LAST]"
        case .size: selectorText = "[SIZE]"
        case .position(let position): selectorText = "[\(PredicatePrinter.print(position))]"
        }
        guard case .keyPath(let root, let components, let pathSpan) = base, let name = components.last else {
            throw error(.type, "\(selectorText) needs a to-many key path before it", at: base.span,
                        note: "such as items\(selectorText)")
        }
        let owner = components.count == 1
            ? try operand(root ?? .evaluatedObject(pathSpan), &slot)
            : try operand(.keyPath(base: root, Array(components.dropLast()), pathSpan), &slot)
        guard case .object(let reference, let entity) = owner.operand else {
            throw error(.type, "\(selectorText) needs a to-many relationship, but '\(components.joined(separator: "."))' is not one",
                        at: base.span)
        }
        let nameSpan = componentSpan(pathSpan, components, components.count - 1)
        guard let relationship = entity.relationship(named: name) else {
            if entity.attribute(named: name) != nil {
                throw error(.type, "'\(name)' is an attribute of '\(entity.name)'; \(selectorText) needs a to-many relationship",
                            at: nameSpan)
            }
            throw error(.unknownKey, "unknown key '\(name)' on entity '\(entity.name)'", at: nameSpan,
                        note: PredicateSyntaxError.suggestion(for: name, in: entity.propertyNames))
        }
        guard relationship.isToMany else {
            throw error(.type, "'\(name)' is a to-one relationship; \(selectorText) needs a to-many relationship", at: nameSpan,
                        note: relationship.destination.attributes.first.map { "compare its attributes directly, such as \(name).\($0.name)" })
        }
        let offset: Int64, fromEnd: Bool
        switch selector {
        case .size:
            scopeEntities.append(relationship.destination)
            let collection = CheckedCollection(scope: reference.scope, hops: reference.hops, relationship: relationship,
                                               innerScope: scopeEntities.count - 1)
            return Checked(operand: .scalar(.aggregate(.count, collection, nil), .numeric), span: span)
        case .first: (offset, fromEnd) = (0, false)
        case .last: (offset, fromEnd) = (0, true)
        case .position(let position):
            guard case .value(.integer(let value), _) = position, value >= 0 else {
                let negative = { if case .value(.integer(let v), _) = position { return v < 0 } else { return false } }()
                throw error(.type, "an index must be a whole number of 0 or more, written in the predicate or passed with %d",
                            at: position.span, note: negative ? "write \(name)[LAST] for the last object" : "such as \(name)[0]")
            }
            (offset, fromEnd) = (value, false)
        }
        guard relationship.orderKey != nil else {
            throw error(.type, "'\(name)' is not ordered, so \(selectorText) has no meaning", at: span,
                        note: "order it in the model (orderedBy:), or use \(name)[SIZE], ANY, ALL, NONE or SUBQUERY")
        }
        return Checked(operand: .object(CheckedObjectReference(
            scope: reference.scope, hops: reference.hops + [.element(relationship, offset: offset, fromEnd: fromEnd)]),
            relationship.destination), span: span)
    }

    /// `FUNCTION(receiver, 'name', arguments…)`.
    private mutating func function(
        _ receiver: PredicateExpression, _ name: String, _ arguments: [PredicateExpression], span: SourceSpan,
        _ slot: inout QuantifierSlot
    ) throws(PredicateSyntaxError) -> Checked {
        guard let function = PredicateFunction(named: name) else {
            throw error(.unknownFunction, "unknown function \(PredicatePrinter.quoted(name))", at: span,
                        note: PredicateSyntaxError.suggestion(for: name, in: PredicateFunction.names.keys.sorted())
                            ?? "the functions are " + PredicateFunction.allCases.map { "'\($0.name)'" }.joined(separator: ", "))
        }
        guard arguments.count == function.argumentCount else {
            let expected = function.argumentCount == 0 ? "no arguments" : "\(function.argumentCount) argument"
            throw error(.type, "'\(name)' takes \(expected) after the receiver, but \(arguments.count) \(arguments.count == 1 ? "was" : "were") given",
                        at: span, note: function.argumentCount == 0
                            ? "write FUNCTION(receiver, '\(name)')" : "write FUNCTION(receiver, '\(name)', divisor)")
        }
        let needed = function.operandKind == .string ? "a String" : "a number"
        var operands: [CheckedExpression] = []
        for expression in [receiver] + arguments {
            let checked = try operand(expression, &slot)
            switch checked.operand {
            case .object: throw error(.type, "'\(name)' needs \(needed), but this is an object", at: checked.span)
            case .list: throw error(.type, "'\(name)' needs \(needed), not a list", at: checked.span)
            case .value(.objectID): throw error(.type, "'\(name)' needs \(needed), but this is an ObjectID", at: checked.span)
            default: break
            }
            if let kind = naturalKind(checked), kind != function.operandKind {
                throw error(.type, "'\(name)' needs \(needed), but this is a \(kind)", at: checked.span)
            }
            operands.append(try self.expression(checked, as: function.operandKind))
        }
        return Checked(operand: .scalar(.function(function, operands), function.resultKind), span: span)
    }

    private func variableScope(_ name: String, span: SourceSpan) throws(PredicateSyntaxError) -> Int {
        guard let scope = variables[name] else {
            throw error(.unknownVariable, "the variable $\(name) has no value", at: span,
                        note: name.nearest(in: Array(variables.keys)).map { "did you mean '$\($0)'?" }
                            ?? "give it one with substituting([\"\(name)\": …])")
        }
        return scope
    }

    private func numeric(_ checked: Checked) throws(PredicateSyntaxError) -> CheckedExpression {
        if let kind = naturalKind(checked), kind != .numeric {
            throw error(.type, "arithmetic needs numbers, but this is a \(kind)", at: checked.span)
        }
        if case .value(.objectID) = checked.operand {
            throw error(.type, "arithmetic needs numbers, but this is an ObjectID", at: checked.span)
        }
        return try expression(checked, as: .numeric)
    }

    private mutating func subquery(
        _ collection: PredicateExpression, _ variable: String, _ predicate: PredicateNode, span: SourceSpan
    ) throws(PredicateSyntaxError) -> (CheckedCollection, CheckedNode) {
        var slot = QuantifierSlot(isAllowed: true)
        let enclosingPath = activePath
        activePath = nil
        let checked = try operand(collection, &slot)
        activePath = enclosingPath
        guard slot.collections.count <= 1 else {
            throw error(.type, "a SUBQUERY's collection can go through only one to-many relationship", at: collection.span,
                        note: "nest a SUBQUERY over the inner relationship in the predicate")
        }
        guard let resolved = slot.collections.first, case .object(let reference, _) = checked.operand,
              reference.hops.isEmpty, reference.scope == resolved.innerScope else {
            throw error(.type, "SUBQUERY needs a to-many key path as its collection", at: collection.span,
                        note: "such as SUBQUERY(items, $item, $item.price > 2).@count")
        }
        let saved = variables[variable]
        variables[variable] = resolved.innerScope
        defer { variables[variable] = saved }
        return (resolved, try checkNode(predicate))
    }

    /// Where component `index` of a key path was written, when it can be found in the span.
    private func componentSpan(_ span: SourceSpan, _ components: [String], _ index: Int) -> SourceSpan {
        guard span.isKnown else { return span }
        let characters = Array(source.unicodeScalars)
        let end = min(characters.count, span.start + span.length)
        var cursor = span.start
        for (position, component) in components.enumerated() {
            let target = Array(component.unicodeScalars)
            var found: Int?
            var start = cursor
            while start + target.count <= end {
                if Array(characters[start..<start + target.count]) == target { found = start; break }
                start += 1
            }
            guard let found else { return span }
            if position == index { return SourceSpan(start: found, length: target.count) }
            cursor = found + target.count
        }
        return span
    }

    /// Follows `components` from the object in `scope`.
    private mutating func walk(
        scope: Int, _ components: [String], span: SourceSpan, _ slot: inout QuantifierSlot
    ) throws(PredicateSyntaxError) -> Checked {
        try walk(from: CheckedObjectReference(scope: scope, hops: []), entity: scopeEntities[scope], components,
                 span: span, &slot)
    }

    /// Follows `components` from the object `start` refers to, of `startEntity`.
    private mutating func walk(
        from start: CheckedObjectReference, entity startEntity: EntityDescription, _ components: [String],
        span: SourceSpan, _ slot: inout QuantifierSlot
    ) throws(PredicateSyntaxError) -> Checked {
        let scope = start.scope
        var entity = startEntity
        var hops = start.hops
        var index = 0
        while index < components.count {
            let name = components[index]
            if let attribute = entity.attribute(named: name) {
                guard index == components.count - 1 else {
                    let next = components[index + 1]
                    throw error(.unknownKey, "'\(name)' is an attribute of '\(entity.name)' and has no key '\(next)'",
                                at: componentSpan(span, components, index + 1),
                                note: next.hasPrefix("@") ? "aggregates such as \(next) apply to to-many relationships" : nil)
                }
                return Checked(operand: .scalar(.attribute(scope: scope, hops: hops, attribute), ValueKind(attribute.type)),
                               span: span)
            }
            guard let relationship = entity.relationship(named: name) else {
                if name.hasPrefix("@") {
                    throw error(.type, "\(name) needs a to-many relationship before it", at: componentSpan(span, components, index),
                                note: "such as items.\(name)")
                }
                throw error(.unknownKey, "unknown key '\(name)' on entity '\(entity.name)'",
                            at: componentSpan(span, components, index),
                            note: PredicateSyntaxError.suggestion(for: name, in: entity.propertyNames))
            }
            index += 1
            guard relationship.isToMany else {
                hops.append(.toOne(relationship))
                entity = relationship.destination
                continue
            }
            return try toMany(relationship, from: scope, hops: hops, rest: Array(components[index...]),
                              span: span, relationshipSpan: componentSpan(span, components, index - 1), &slot)
        }
        return Checked(operand: .object(CheckedObjectReference(scope: scope, hops: hops), entity), span: span)
    }

    private mutating func toMany(
        _ relationship: RelationshipDescription, from scope: Int, hops: [CheckedHop], rest: [String],
        span: SourceSpan, relationshipSpan: SourceSpan, _ slot: inout QuantifierSlot
    ) throws(PredicateSyntaxError) -> Checked {
        let destination = relationship.destination!
        scopeEntities.append(destination)
        let collection = CheckedCollection(scope: scope, hops: hops, relationship: relationship,
                                           innerScope: scopeEntities.count - 1)
        var closed = QuantifierSlot(isAllowed: false)
        if let position = rest.firstIndex(where: { $0.hasPrefix("@") }),
           position == 0 || !Self.crossesToMany(Array(rest[..<position]), from: destination) {
            let name = rest[position]
            guard let function = AggregateFunction(rawValue: name) else {
                throw error(.type, "unknown aggregate '\(name)'", at: span,
                            note: PredicateSyntaxError.suggestion(for: name, in: AggregateFunction.allCases.map(\.rawValue))
                                ?? "aggregates are @count, @sum, @avg, @min and @max")
            }
            var inner = rest
            inner.remove(at: position)
            guard position == 0 || position == rest.count - 1 else {
                throw error(.type, "write \(name) right after '\(relationship.name)' or at the end of the key path", at: span)
            }
            if function == .count {
                guard inner.isEmpty else {
                    throw error(.type, "@count counts objects and takes no key", at: span,
                                note: "write \(relationship.name).@count")
                }
                return Checked(operand: .scalar(.aggregate(.count, collection, nil), .numeric), span: span)
            }
            guard !inner.isEmpty else {
                throw error(.type, "\(name) needs a key to aggregate", at: span,
                            note: "such as \(relationship.name).\(name).\(destination.attributes.first?.name ?? "value")")
            }
            let value = try walk(scope: collection.innerScope, inner, span: span, &closed)
            guard case .scalar(let expression, let kind) = value.operand else {
                throw error(.type, "\(name) needs an attribute, not an object", at: span)
            }
            if function == .sum || function == .avg, kind != .numeric {
                throw error(.type, "\(name) needs numbers, but '\(inner.joined(separator: "."))' is a \(kind)", at: span)
            }
            if kind == .binary || kind == .uuid || kind == .url, function != .sum {
                throw error(.type, "\(name) needs numbers, strings or dates, not a \(kind)", at: span)
            }
            return Checked(operand: .scalar(.aggregate(function, collection, expression),
                                            function == .min || function == .max ? kind : .numeric), span: span)
        }
        guard slot.isAllowed, slot.collections.isEmpty || slot.boundPath == activePath else {
            if !slot.collections.isEmpty {
                throw error(.type, "only one key path of a comparison can go through to-many relationships",
                            at: relationshipSpan, note: "use SUBQUERY to relate two collections")
            }
            throw toManyError(at: relationshipSpan, relationship: relationship)
        }
        if slot.collections.isEmpty {
            slot.collectionSpan = relationshipSpan
            slot.boundPath = activePath
        }
        slot.collections.append(collection)
        if rest.isEmpty {
            return Checked(operand: .object(CheckedObjectReference(scope: collection.innerScope, hops: []), destination),
                           span: span)
        }
        return try walk(scope: collection.innerScope, rest, span: span, &slot)
    }

    /// Whether `path` from `entity` goes through a to-many relationship (so an aggregate at
    /// its end applies to that one: `ANY recipes.ingredients.@count > 2`).
    static func crossesToMany(_ path: [String], from entity: EntityDescription) -> Bool {
        var entity = entity
        for name in path {
            guard let relationship = entity.relationship(named: name) else { return false }
            if relationship.isToMany { return true }
            entity = relationship.destination
        }
        return false
    }
}
