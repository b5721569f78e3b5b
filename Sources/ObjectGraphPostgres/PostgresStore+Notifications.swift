import ObjectGraph
import ObjectGraphSQL
import Foundation

/// Change notifications between processes: every save and batch request sends the IDs it
/// changed with `NOTIFY` inside its transaction (PostgreSQL delivers them at commit, and
/// never for a transaction that rolled back); every store listening on the same database
/// hands them to its coordinator's did-save merge path, so contexts that merge
/// automatically (the shell's, `.watch`) see other processes' saves.
///
/// The channel is named after the store's UUID, `objectgraph_<uuid>`. A payload is
/// `SENDER;i:E.K,…;u:…;d:…` (entity index and key of each object inserted, updated,
/// deleted); saves that change more IDs than fit in one payload (8,000 bytes) send several.
extension PostgresStore {
    /// The channel the store's saves are announced on.
    var channel: String { "objectgraph_" + identifier.lowercased().filter { $0.isLetter || $0.isNumber } }

    /// Sends the notification of a save inside its transaction.
    func announce(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID], _ session: PostgresSession) throws {
        for payload in Self.payloads(sender: sender, inserted: inserted, updated: updated, deleted: deleted) {
            try session.run(SchemaSQL.notify, [.text(channel), .text(payload)])
        }
    }

    /// Starts listening for other processes' saves on a connection of its own; `deliver`
    /// runs on a serial queue of the store, never on PostgresNIO's event loop.
    ///
    /// When the server drops that connection, it is made again (see
    /// ``PostgresSession/listen(_:on:_:relistened:)``); saves announced meanwhile are lost, so
    /// once it listens again `deliver` hears a note of ``ObjectGraph/DidSave/changesUnknown``:
    /// everything may have changed.
    func startListening(_ deliver: @escaping @Sendable (DidSave) -> Void) throws {
        let sender = self.sender
        let queue = DispatchQueue(label: "ObjectGraphPostgres.notifications")
        let listener = try PostgresSession(location)
        let listeners = self.listeners
        // A notification already on its way when listening stopped is dropped. Weakly: the
        // list holds the listening session, whose connection holds this closure, and a
        // strong capture kept every store's listening connection open for the life of the
        // process, long after the store was gone.
        let handOver: @Sendable (DidSave) -> Void = { [weak listeners] note in
            guard let listeners else { return }
            queue.async { if !listeners.withLock({ $0.isEmpty }) { deliver(note) } }
        }
        try listener.listen(channel, on: queue, { payload in
            guard let (from, note) = Self.parse(payload), from != sender else { return }
            handOver(note)
        }, relistened: {
            var note = DidSave()
            note.changesUnknown = true
            handOver(note)
        })
        listeners.withLock { $0.append(listener) }
    }

    /// Stops listening: its connections close, and notifications still on their way are
    /// dropped. The store has left its coordinator (migrated to another), whose contexts
    /// must no longer hear of this database's saves.
    func stopListening() {
        listeners.withLock { $0.removeAll() }
    }

    /// Stops listening once the coordinator has put another store in this one's place.
    package func didLeaveCoordinator() { stopListening() }

    /// The payloads announcing one save.
    static func payloads(sender: String, inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) -> [String] {
        var payloads: [String] = []
        var current = sender
        for (kind, ids) in [("i", inserted), ("u", updated), ("d", deleted)] {
            var first = true
            for id in ids {
                let item = "\(id.entityIndex).\(id.key)"
                if current.utf8.count + item.utf8.count + 4 > 7_900 {
                    payloads.append(current)
                    current = sender
                    first = true
                }
                current += first ? ";\(kind):\(item)" : ",\(item)"
                first = false
            }
        }
        if current != sender || payloads.isEmpty { payloads.append(current) }
        return payloads
    }

    /// The sender and the changes of a payload, or nil when it is not one.
    static func parse(_ payload: String) -> (String, DidSave)? {
        let parts = payload.split(separator: ";")
        guard let sender = parts.first else { return nil }
        var note = DidSave()
        for part in parts.dropFirst() {
            let ids = part.dropFirst(2).split(separator: ",").compactMap { item -> ObjectID? in
                let numbers = item.split(separator: ".")
                guard numbers.count == 2, let entity = Int(numbers[0]), let key = Int64(numbers[1]) else { return nil }
                return ObjectID(entityIndex: entity, key: key)
            }
            switch part.first {
            case "i": note.insertedIDs += ids
            case "u": note.updatedIDs += ids
            case "d": note.deletedIDs += ids
            default: return nil
            }
        }
        return (String(sender), note)
    }
}
