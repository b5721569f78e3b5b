/// A predicate resolved against an entity: the tree both back ends run.
///
/// Every key path is bound to the model's attributes and relationships, every constant is
/// converted to the stored form of what it is compared with (a `Date` to seconds since
/// 1970, a `UUID` to its uppercase string), and every operator has operands it accepts.
/// ``evaluate(_:)`` is the reference semantics; the SQL stores' `PredicateSQLCompiler` (module `ObjectGraphSQL`) lowers the same
/// tree to SQL that selects exactly the same objects.
///
/// Objects in scope are numbered: scope 0 is the evaluated object; every to-many
/// collection (`ANY`, `ALL`, `NONE`, `@count`, `@sum`, …, `SUBQUERY`) binds its
/// destination objects to a scope number of its own.
package struct CheckedPredicate: Sendable {
    /// The entity the predicate was checked for.
    package let entity: EntityDescription
    /// The resolved tree.
    package let root: CheckedNode
    /// How many scopes the tree uses (1 + the number of collections).
    package let scopeCount: Int
}

/// A resolved predicate node. Every node is two-valued: true or false, never unknown.
package indirect enum CheckedNode: Sendable {
    case constant(Bool)
    case not(CheckedNode)
    case and([CheckedNode])
    case or([CheckedNode])
    /// `==`, `!=`, `<`, `<=`, `>`, `>=` between two scalars of one kind.
    case compare(ComparisonOperator, ComparisonOptions, CheckedExpression, CheckedExpression, ValueKind)
    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES` between two strings.
    case string(ComparisonOperator, ComparisonOptions, CheckedExpression, CheckedExpression)
    /// `x IN {a, b, …}`: some element equals `x` (with `==`'s nil semantics).
    case member(CheckedExpression, [CheckedExpression], ComparisonOptions, ValueKind)
    /// `ANY`/`ALL`/`NONE` over a to-many collection; the body sees the collection's scope.
    case quantified(ComparisonModifier, CheckedCollection, CheckedNode)
    /// The object at `reference` is one of `ids` (or nil, when `matchesNil`).
    case identity(CheckedObjectReference, [ObjectID], matchesNil: Bool)
}

/// A resolved scalar expression.
package indirect enum CheckedExpression: Sendable {
    /// A constant in stored form.
    case constant(StoredValue)
    /// An attribute of the object in `scope`, reached through `hops`.
    case attribute(scope: Int, hops: [CheckedHop], AttributeDescription)
    case arithmetic(ArithmeticOperator, CheckedExpression, CheckedExpression)
    case negate(CheckedExpression)
    /// `@count` (no operand) or `@sum`, `@avg`, `@min`, `@max` of an expression in the collection's scope.
    case aggregate(AggregateFunction, CheckedCollection, CheckedExpression?)
    /// `SUBQUERY(collection, $x, predicate).@count`.
    case subqueryCount(CheckedCollection, CheckedNode)
    /// `FUNCTION(receiver, 'name', arguments…)`: the receiver first, then the arguments.
    case function(PredicateFunction, [CheckedExpression])

    /// The constant, if this is one.
    package var constantValue: StoredValue? {
        if case .constant(let value) = self { return value }
        return nil
    }
}

/// A to-many relationship reached from the object in `scope` through `hops`; its
/// destination objects are bound to `innerScope` one at a time.
package struct CheckedCollection: Sendable {
    package let scope: Int
    package let hops: [CheckedHop]
    package let relationship: RelationshipDescription
    package let innerScope: Int
}

/// An object: the one in `scope`, or the one reached from it through `hops`.
package struct CheckedObjectReference: Sendable {
    package let scope: Int
    package let hops: [CheckedHop]
}

/// One step from an object to a single other object (or to none).
package enum CheckedHop: Sendable {
    /// The destination of a to-one relationship.
    case toOne(RelationshipDescription)
    /// One object of an ordered to-many relationship: the one at `offset` in the
    /// relationship's order (``RelationshipDescription/orderKey``, then primary key), counted
    /// from the end when `fromEnd`; none when there are not enough objects.
    /// `FIRST` is offset 0, `LAST` offset 0 from the end, `[n]` offset n.
    case element(RelationshipDescription, offset: Int64, fromEnd: Bool)

    /// The relationship the step follows.
    package var relationship: RelationshipDescription {
        switch self {
        case .toOne(let relationship), .element(let relationship, _, _): relationship
        }
    }
}

/// `@count`, `@sum`, `@avg`, `@min`, `@max`.
package enum AggregateFunction: String, Sendable, CaseIterable {
    case count = "@count", sum = "@sum", avg = "@avg", min = "@min", max = "@max"
}

/// What kind of values an expression has, which decides how they compare.
package enum ValueKind: Sendable, Equatable, CustomStringConvertible {
    /// Integers, doubles and booleans: compared as numbers.
    case numeric
    /// Text, compared by its UTF-8 bytes (after folding, with `[c]`/`[d]`).
    case string
    /// Seconds since 1970.
    case date
    /// Bytes.
    case binary
    /// Uppercase UUID text.
    case uuid
    /// URL text.
    case url

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .double, .boolean: self = .numeric
        case .string: self = .string
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        case .url: self = .url
        }
    }

    package var description: String {
        switch self {
        case .numeric: "number"
        case .string: "String"
        case .date: "Date"
        case .binary: "Data"
        case .uuid: "UUID"
        case .url: "URL"
        }
    }
}

extension FetchPredicate {
    /// Resolves the predicate against `entity`: key paths, types and variables.
    ///
    /// Called once per fetch, before any SQL runs.
    /// - Throws: ``PredicateSyntaxError`` naming the key, operator or value at fault, with
    ///   the span in the source text when known.
    func checked(for entity: EntityDescription) throws -> CheckedPredicate {
        if let source {
            var checker = PredicateTypeChecker(entity: entity, source: source)
            return try checker.check(node)
        }
        // Composed or substituted in code: check against the canonical text so that an
        // error can point into it.
        let text = description
        var checker = PredicateTypeChecker(entity: entity, source: text)
        do {
            return try checker.check(node)
        } catch {
            if let reparsed = try? FetchPredicate(format: text, argumentArray: []), reparsed == self {
                var located = PredicateTypeChecker(entity: entity, source: text)
                _ = try located.check(reparsed.node)
            }
            throw error
        }
    }
}

extension CheckedExpression {
    /// An attribute of `entity`, or one reached through to-one relationships (`chef.name`),
    /// as sorts and dictionary fetches name them.
    /// - Throws: ``ObjectGraphError`` `unknownKey` for a single key that is not a stored
    ///   attribute (saying so when it is a relationship or transient) and for a path through a
    ///   to-many relationship; ``PredicateSyntaxError`` when a key on a longer path is unknown
    ///   or the path does not end at an attribute.
    package static func attributePath(_ keyPath: String, of entity: EntityDescription) throws -> CheckedExpression {
        let path = keyPath.split(separator: ".").map(String.init)
        if path.count <= 1 {
            guard let attribute = entity.attribute(named: keyPath), !attribute.isTransient else {
                throw ObjectGraphError.notAnAttribute(keyPath, entity: entity)
            }
            return .attribute(scope: 0, hops: [], attribute)
        }
        // A sort key, a section or a fetched value is one value an object: a to-many has many.
        var hop = entity
        for name in path.dropLast() {
            guard let relationship = hop.relationship(named: name) else { break }  // the checker names it
            if relationship.isToMany {
                throw ObjectGraphError(.unknownKey, """
                    '\(keyPath)' goes through '\(name)', a to-many relationship of '\(hop.name)': sort keys, \
                    section key paths and fetched values name one value an object, through to-one relationships only
                    """)
            }
            hop = relationship.destination
        }
        let span = SourceSpan(start: 0, length: keyPath.unicodeScalars.count)
        var checker = PredicateTypeChecker(entity: entity, source: keyPath)
        var slot = PredicateTypeChecker.QuantifierSlot(isAllowed: false)
        do {
            let checked = try checker.operand(.keyPath(base: nil, path, span), &slot)
            guard case .scalar(let expression, _) = checked.operand, case .attribute = expression else {
                throw PredicateSyntaxError(.type, "'\(keyPath)' is not an attribute", note: "name an attribute, such as \(keyPath).name",
                                           source: keyPath, span: span)
            }
            return expression
        } catch var error as PredicateSyntaxError {
            error.origin = "key path"
            throw error
        }
    }

    /// The attribute at the end of a path made by ``attributePath(_:of:)``.
    package var attribute: AttributeDescription? {
        if case .attribute(_, _, let attribute) = self { return attribute }
        return nil
    }
}
