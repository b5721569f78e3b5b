/// An error from the framework: what happened, to which object or file, and what to do.
///
/// Callers match on ``code``; people read ``description``.
/// ```swift
/// do { try context.save() }
/// catch let error as ObjectGraphError where error.code == .validation { print(error) }
/// ```
public struct ObjectGraphError: Error, Sendable, CustomStringConvertible {
    /// A stable, extensible kind of error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The model declaration is inconsistent (names, inverses, parents, indexes).
        public static let invalidModel = Code("invalidModel")
        /// No entity has that name.
        public static let unknownEntity = Code("unknownEntity")
        /// The entity has no attribute or relationship of that name, or the key names the
        /// wrong kind of property for its use (a relationship to sort by, an attribute to prefetch).
        public static let unknownKey = Code("unknownKey")
        /// A value does not fit the attribute's type.
        public static let invalidValue = Code("invalidValue")
        /// Saving would break a rule: a required value, a relationship count, a deny rule.
        public static let validation = Code("validation")
        /// Saving would break a uniqueness constraint.
        public static let constraintViolation = Code("constraintViolation")
        /// The file exists but is not a database of this framework (or not SQLite at all).
        public static let notADatabase = Code("notADatabase")
        /// Another process holds a lock on the store file for longer than the busy timeout.
        public static let storeLocked = Code("storeLocked")
        /// The store was made with a different model.
        public static let modelMismatch = Code("modelMismatch")
        /// The object with that ID does not exist (any more) in the store.
        public static let objectNotFound = Code("objectNotFound")
        /// The store could not be opened, read or written.
        public static let storeFailure = Code("storeFailure")
        /// A save found rows changed by another context or process since this context
        /// loaded them, and the merge policy is ``MergePolicy/error``.
        public static let mergeConflict = Code("mergeConflict")
        /// A mapping between two model versions cannot be inferred: a change needs a mapping
        /// model with a custom policy (the message names the entity, the property and the change).
        public static let cannotInferMapping = Code("cannotInferMapping")
        /// A migration did not complete (the message names the entity and the object); the
        /// original store is unchanged.
        public static let migrationFailed = Code("migrationFailed")
        /// The operation was cancelled by the caller.
        public static let cancelled = Code("cancelled")
        /// The store refused a fetch's predicate as too large or too deeply nested for its
        /// limits (SQLite's expression depth, parser stack or bound values); the message
        /// gives the store's words. Make the predicate shallower, or split the fetch.
        public static let predicateTooComplex = Code("predicateTooComplex")

        /// The code's name.
        public var description: String { name }
    }

    /// The kind of error.
    public var code: Code
    /// What went wrong and what to do about it, in one or two sentences.
    public var message: String
    /// The error underneath, if any (a SQLite error, a file error).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    static func unknownEntity(_ name: String, known: [String]) -> ObjectGraphError {
        var message = "unknown entity '\(name)'"
        if let guess = name.nearest(in: known) { message += "; did you mean '\(guess)'?" }
        return ObjectGraphError(.unknownEntity, message)
    }

    package static func unknownKey(_ key: String, entity: EntityDescription) -> ObjectGraphError {
        var message = "unknown key '\(key)' on entity '\(entity.name)'"
        if let guess = key.nearest(in: entity.propertyNames) { message += "; did you mean '\(guess)'?" }
        return ObjectGraphError(.unknownKey, message)
    }

    /// The error for `key` where a stored attribute is needed (a sort, a dictionary fetch):
    /// unknown, or a relationship or transient attribute, each said as such.
    package static func notAnAttribute(_ key: String, entity: EntityDescription) -> ObjectGraphError {
        if let relationship = entity.relationship(named: key) {
            let destination: EntityDescription = relationship.destination
            let example = destination.attributes.first(where: { !$0.isTransient }).map { " such as \(key).\($0.name)" } ?? ""
            return ObjectGraphError(.unknownKey, relationship.isToMany
                ? "'\(key)' is a to-many relationship of '\(entity.name)', not an attribute; name an attribute of '\(entity.name)', or of a to-one relationship"
                : "'\(key)' is a relationship of '\(entity.name)', not an attribute; name one of its attributes,\(example)")
        }
        if entity.attribute(named: key)?.isTransient == true {
            return ObjectGraphError(.unknownKey, "'\(key)' is a transient attribute of '\(entity.name)': it is never stored, so the store cannot read it")
        }
        return unknownKey(key, entity: entity)
    }

    /// A batch update of `entity` that would give two rows the same unique values: `columns`
    /// are the unique columns the store named, `values` what the update sets; said with the
    /// store's own message when the update sets none of those columns.
    package static func batchUpdateUniqueness(
        entity: EntityDescription, columns: [String], values: [String: StoredValue],
        storeMessage: String, underlying: any Error & Sendable
    ) -> ObjectGraphError {
        let named = columns.compactMap { column in
            values[column].map { value in
                "\(column) = \(entity.attribute(named: column)?.type.swiftValue(from: value).map { "\($0)" } ?? "nil")"
            }
        }
        guard !named.isEmpty else {
            return ObjectGraphError(.constraintViolation, "cannot update \(entity.name): \(storeMessage); nothing was updated",
                                    underlying: underlying)
        }
        return ObjectGraphError(.constraintViolation,
            "cannot update \(entity.name): another \(entity.root.name) would have \(named.joined(separator: ", ")) too, "
            + "and \(columns.count == 1 ? "it is" : "they are") unique; nothing was updated", underlying: underlying)
    }

    /// A batch insert of `entity` whose row `row` (from 1, when known) repeats another row's
    /// unique values, `detail` naming them (`name = Ana`): one of the store or of the batch.
    package static func batchInsertUniqueness(
        entity: EntityDescription, row: Int?, detail: String, underlying: (any Error & Sendable)? = nil
    ) -> ObjectGraphError {
        ObjectGraphError(.constraintViolation,
            "cannot insert \(entity.name): \(row.map { "row \($0): " } ?? "")another \(entity.root.name) already has \(detail); nothing was inserted",
            underlying: underlying)
    }

    /// The error for `key` where a relationship is needed (prefetching): unknown, or an attribute.
    package static func notARelationship(_ key: String, entity: EntityDescription) -> ObjectGraphError {
        guard entity.attribute(named: key) != nil else { return unknownKey(key, entity: entity) }
        let names = entity.relationships.map(\.name)
        return ObjectGraphError(.unknownKey, "'\(key)' is an attribute of '\(entity.name)'; only relationships are prefetched"
            + (names.isEmpty ? ", and it has none" : " (\(names.joined(separator: ", ")))"))
    }
}
