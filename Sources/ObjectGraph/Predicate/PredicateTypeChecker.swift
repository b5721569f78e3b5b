import Foundation

/// Resolves a ``PredicateNode`` against an entity into a ``CheckedPredicate``.
///
/// It binds key paths to attributes and relationships (through to-one relationships; into
/// a to-many one only with `ANY`/`ALL`/`NONE`, an aggregate or `SUBQUERY`), converts
/// constants to stored form, and rejects comparisons the back ends could not agree on,
/// such as a string compared with a date. Errors carry the span of the offending text.
struct PredicateTypeChecker {
    let entity: EntityDescription
    let source: String
    /// The entity of each scope; scope 0 is the evaluated object.
    var scopeEntities: [EntityDescription]
    /// SUBQUERY variables in scope.
    var variables: [String: Int] = [:]
    /// The key path being resolved (an id), so that only it may go through further to-many
    /// relationships once it has bound a comparison's collections.
    var activePath: Int?
    var pathCounter = 0

    init(entity: EntityDescription, source: String) {
        self.entity = entity
        self.source = source
        self.scopeEntities = [entity]
    }

    /// An operand after resolution, before its constants are converted.
    enum Operand {
        case scalar(CheckedExpression, ValueKind)
        case value(PredicateValue)
        case list([Checked])
        case object(CheckedObjectReference, EntityDescription)
    }

    /// An operand and where it was written.
    struct Checked {
        var operand: Operand
        var span: SourceSpan
    }

    /// The to-many collections a quantified comparison crosses: those of one key path,
    /// outermost first (`ANY recipes.ingredients.name` crosses `recipes`, then `ingredients`).
    struct QuantifierSlot {
        var isAllowed: Bool
        var collections: [CheckedCollection] = []
        var collectionSpan = SourceSpan.unknown
        /// The key path (``PredicateTypeChecker/activePath``) that bound the collections.
        var boundPath: Int?
    }

    mutating func check(_ node: PredicateNode) throws(PredicateSyntaxError) -> CheckedPredicate {
        let root = try checkNode(node)
        return CheckedPredicate(entity: entity, root: root, scopeCount: scopeEntities.count)
    }

    func error(_ kind: PredicateSyntaxError.Kind, _ message: String, at span: SourceSpan,
               note: String? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(kind, message, note: note, source: source, span: span)
    }

    // MARK: Nodes

    mutating func checkNode(_ node: PredicateNode) throws(PredicateSyntaxError) -> CheckedNode {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let operand, _): return .not(try checkNode(operand))
        case .and(let operands):
            var checked: [CheckedNode] = []
            for operand in operands { checked.append(try checkNode(operand)) }
            return .and(checked)
        case .or(let operands):
            var checked: [CheckedNode] = []
            for operand in operands { checked.append(try checkNode(operand)) }
            return .or(checked)
        case .comparison(let comparison): return try checkComparison(comparison)
        }
    }

    private mutating func checkComparison(_ c: PredicateComparison) throws(PredicateSyntaxError) -> CheckedNode {
        let implicit = c.modifier == .direct && (c.op == .in || c.op == .contains)
        var slot = QuantifierSlot(isAllowed: c.modifier != .direct || implicit)
        let enclosingPath = activePath
        activePath = nil
        defer { activePath = enclosingPath }
        let lhs = try operand(c.lhs, &slot)
        let lhsUsedSlot = !slot.collections.isEmpty
        let rhs = try operand(c.rhs, &slot)
        guard let collection = slot.collections.first else {
            if c.modifier != .direct {
                throw error(.type, "\(c.modifier.rawValue) needs a to-many key path", at: c.span,
                            note: "write it before a key through a to-many relationship, such as ANY items.name")
            }
            return try comparison(c.op, c.options, lhs, rhs, span: c.span)
        }
        guard implicit else {
            return quantified(c.modifier, slot.collections, try comparison(c.op, c.options, lhs, rhs, span: c.span))
        }
        // `x IN toMany…` and `toMany… CONTAINS x` mean `ANY toMany… == x`.
        guard (c.op == .in) != lhsUsedSlot else {
            throw toManyError(at: slot.collectionSpan, relationship: collection.relationship)
        }
        let (element, other) = c.op == .in ? (rhs, lhs) : (lhs, rhs)
        return quantified(.any, slot.collections, try comparison(.equal, c.options, element, other, span: c.span))
    }

    /// `body` quantified over the objects reached through `collections` (all paths through
    /// them): `ANY` is some object at the end, `ALL` every one, `NONE` not any.
    private func quantified(_ modifier: ComparisonModifier, _ collections: [CheckedCollection], _ body: CheckedNode) -> CheckedNode {
        var node = body
        for collection in collections.dropFirst().reversed() {
            node = .quantified(modifier == .all ? .all : .any, collection, node)
        }
        return .quantified(modifier, collections[0], node)
    }

    func toManyError(at span: SourceSpan, relationship: RelationshipDescription) -> PredicateSyntaxError {
        error(.type, "'\(relationship.name)' is a to-many relationship; say which of its objects to compare",
              at: span, note: "use ANY, ALL or NONE, an aggregate such as \(relationship.name).@count, or SUBQUERY")
    }

    /// Builds the node for `lhs op rhs` once both operands are resolved.
    mutating func comparison(
        _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: Checked, _ rhs: Checked, span: SourceSpan
    ) throws(PredicateSyntaxError) -> CheckedNode {
        switch op {
        case .equal, .notEqual:
            if case .object = lhs.operand { return try identity(lhs, [rhs], negated: op == .notEqual) }
            if case .object = rhs.operand { return try identity(rhs, [lhs], negated: op == .notEqual) }
            try rejectList(lhs, rhs, op: op)
            let (l, r, kind) = try unify(lhs, rhs)
            try checkOptions(options, kind: kind, span: span)
            return .compare(op, options, l, r, kind)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            for side in [lhs, rhs] { if case .object = side.operand { throw objectError(side) } }
            try rejectList(lhs, rhs, op: op)
            let (l, r, kind) = try unify(lhs, rhs)
            try checkOptions(options, kind: kind, span: span)
            return .compare(op, options, l, r, kind)
        case .between:
            guard case .list(let bounds) = rhs.operand, bounds.count == 2 else {
                throw error(.type, "BETWEEN needs two bounds", at: rhs.span, note: "write BETWEEN {low, high}")
            }
            return .and([try comparison(.greaterOrEqual, options, lhs, bounds[0], span: span),
                         try comparison(.lessOrEqual, options, lhs, bounds[1], span: span)])
        case .beginsWith, .endsWith, .like, .matches:
            return try stringComparison(op, options, lhs, rhs, span: span)
        case .contains:
            if case .list(let elements) = lhs.operand { return try membership(rhs, elements, options, span: span) }
            return try stringComparison(.contains, options, lhs, rhs, span: span)
        case .in:
            if case .list(let elements) = rhs.operand {
                if case .object = lhs.operand { return try identity(lhs, elements, negated: false) }
                return try membership(lhs, elements, options, span: span)
            }
            return try stringComparison(.contains, options, rhs, lhs, span: span)
        }
    }

    private func rejectList(_ lhs: Checked, _ rhs: Checked, op: ComparisonOperator) throws(PredicateSyntaxError) {
        for side in [lhs, rhs] {
            if case .list = side.operand {
                throw error(.type, "'\(op.rawValue)' compares single values, not a list", at: side.span,
                            note: "use IN to test membership in a list")
            }
        }
    }

    private func objectError(_ side: Checked) -> PredicateSyntaxError {
        guard case .object(let reference, let destination) = side.operand else { preconditionFailure() }
        let name = reference.hops.last?.relationship.name ?? "SELF"
        let example = destination.attributes.first.map { "\(name == "SELF" ? "" : name + ".")\($0.name)" } ?? "an attribute"
        return error(.type, "'\(name)' is an object of entity '\(destination.name)', not a value", at: side.span,
                     note: "compare one of its attributes, such as \(example), or compare it with an ObjectID or nil using == or IN")
    }

    private mutating func stringComparison(
        _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: Checked, _ rhs: Checked, span: SourceSpan
    ) throws(PredicateSyntaxError) -> CheckedNode {
        for side in [lhs, rhs] {
            if case .object = side.operand { throw objectError(side) }
            if case .list = side.operand {
                throw error(.type, "\(op.rawValue) compares strings, not lists", at: side.span)
            }
        }
        let (l, r, kind) = try unify(lhs, rhs)
        guard kind == .string || kind == .url else {
            let culprit = naturalKind(lhs) == kind ? lhs : rhs
            throw error(.type, "\(op.rawValue) needs strings, but this is a \(kind)", at: culprit.span)
        }
        if op == .matches, case .text(let pattern)? = r.constantValue, StringMatching.regex(pattern, options) == nil {
            throw error(.type, "invalid regular expression \(PredicatePrinter.quoted(pattern))", at: rhs.span)
        }
        return .string(op, options, l, r)
    }

    private mutating func membership(
        _ element: Checked, _ list: [Checked], _ options: ComparisonOptions, span: SourceSpan
    ) throws(PredicateSyntaxError) -> CheckedNode {
        if case .object = element.operand { return try identity(element, list, negated: false) }
        var kind = naturalKind(element)
        for item in list where kind == nil { kind = naturalKind(item) }
        let anchor = Checked(operand: kind.map { .scalar(.constant(.null), $0) } ?? .value(.null), span: element.span)
        let (x, _, resolved) = try unify(element, anchor)
        var values: [CheckedExpression] = []
        for item in list {
            if case .list = item.operand { throw error(.type, "lists cannot be nested", at: item.span) }
            let (_, value, _) = try unify(Checked(operand: .scalar(x, resolved), span: element.span), item)
            values.append(value)
        }
        try checkOptions(options, kind: resolved, span: span)
        return .member(x, values, options, resolved)
    }

    private func identity(_ object: Checked, _ candidates: [Checked], negated: Bool) throws(PredicateSyntaxError) -> CheckedNode {
        guard case .object(let reference, let compared) = object.operand else { preconditionFailure() }
        var ids: [ObjectID] = []
        var matchesNil = false
        var flat: [Checked] = []
        for candidate in candidates {
            if case .list(let items) = candidate.operand { flat += items } else { flat.append(candidate) }
        }
        for candidate in flat {
            switch candidate.operand {
            case .value(.objectID(let id)): ids.append(id)
            case .value(.null): matchesNil = true
            default:
                // A string literal may spell an ID as ObjectModel.describe(_:) prints it ("Recipe/p42"),
                // as it may spell a UUID or a URL: text typed by hand has no other way to name an object.
                if case .value(.string(let text)) = candidate.operand, let id = entity.model.objectID(describedAs: text) {
                    let named = entity.model.entities[Int(id.entityIndex)]
                    guard named.isKind(of: compared) else {
                        throw error(.type, "'\(text)' names a \(named.name), but this compares \(compared.name) objects",
                                    at: candidate.span)
                    }
                    ids.append(id)
                    continue
                }
                throw error(.type, "an object can only be compared with an ObjectID or nil", at: candidate.span,
                            note: "pass the object's objectID as a %@ argument, spell it as a string such as \"\(compared.name)/p42\", or compare one of its attributes")
            }
        }
        let node = CheckedNode.identity(reference, ids, matchesNil: matchesNil)
        return negated ? .not(node) : node
    }

    private func checkOptions(_ options: ComparisonOptions, kind: ValueKind, span: SourceSpan) throws(PredicateSyntaxError) {
        guard !options.isEmpty, kind != .string, kind != .url else { return }
        throw error(.type, "the option \(options.formatted) applies to strings, but these values are of type \(kind)",
                    at: span, note: "remove \(options.formatted)")
    }

    // MARK: Types

    /// The kind of an operand; nil for a nil constant.
    func naturalKind(_ checked: Checked) -> ValueKind? {
        switch checked.operand {
        case .scalar(_, let kind): return kind
        case .value(let value):
            switch value {
            case .null, .objectID: return nil
            case .bool, .integer, .double: return .numeric
            case .string: return .string
            case .date: return .date
            case .data: return .binary
            case .uuid: return .uuid
            case .url: return .url
            }
        case .list, .object: return nil
        }
    }

    /// Both operands as expressions of one kind.
    func unify(_ lhs: Checked, _ rhs: Checked) throws(PredicateSyntaxError) -> (CheckedExpression, CheckedExpression, ValueKind) {
        let lk = naturalKind(lhs), rk = naturalKind(rhs)
        var kind = lk ?? rk ?? .numeric
        if let lk, let rk, lk != rk {
            // A string literal may spell a UUID, URL or ISO 8601 date compared with such a value.
            if case .value(.string) = rhs.operand, Self.isSpelledAsText(lk) { kind = lk }
            else if case .value(.string) = lhs.operand, Self.isSpelledAsText(rk) { kind = rk }
            else {
                throw error(.type, "cannot compare a \(lk) with a \(rk)", at: lhs.span.through(rhs.span),
                            note: "compare values of the same type")
            }
        }
        return (try expression(lhs, as: kind), try expression(rhs, as: kind), kind)
    }

    /// An operand as an expression of `kind` (constants converted to stored form).
    func expression(_ checked: Checked, as kind: ValueKind) throws(PredicateSyntaxError) -> CheckedExpression {
        switch checked.operand {
        case .scalar(let expression, _): return expression
        case .value(let value):
            guard let stored = Self.stored(value, as: kind) else {
                let note = if case .string = value, kind == .date {
                    "write a date as \"2024-05-01\", or a date and time as \"2024-05-01T18:30:00Z\" (ISO 8601, UTC unless a zone is given)"
                } else { nil as String? }
                throw error(.type, "\(PredicatePrinter.print(value)) is not a valid \(kind)", at: checked.span, note: note)
            }
            return .constant(stored)
        case .object: throw objectError(checked)
        case .list: throw error(.type, "a list is not a single value", at: checked.span)
        }
    }

    /// The stored form of a constant compared with values of `kind`.
    /// Whether a string literal may stand for a value of `kind`: a UUID, a URL, or an ISO 8601
    /// date (`published > "2024-05-01"`).
    private static func isSpelledAsText(_ kind: ValueKind) -> Bool {
        kind == .uuid || kind == .url || kind == .date
    }

    static func stored(_ value: PredicateValue, as kind: ValueKind) -> StoredValue? {
        switch (value, kind) {
        case (.null, _): return .null
        case (.bool(let v), .numeric): return .integer(v ? 1 : 0)
        case (.integer(let v), .numeric): return .integer(v)
        case (.double(let v), .numeric): return v.isNaN ? .null : .real(v)  // SQLite binds NaN as NULL
        case (.string(let v), .string), (.string(let v), .url): return .text(v)
        case (.string(let v), .uuid): return UUID(uuidString: v).map { .text($0.uuidString) }
        case (.date(let v), .date): return .real(v.timeIntervalSince1970)
        case (.string(let v), .date): return ISO8601Date.parse(v).map { .real($0.timeIntervalSince1970) }
        case (.data(let v), .binary): return .blob(v)
        case (.uuid(let v), .uuid): return .text(v.uuidString)
        case (.url(let v), .url): return .text(v.absoluteString)
        default: return nil
        }
    }
}
