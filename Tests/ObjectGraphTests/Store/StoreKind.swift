import Foundation
@testable import ObjectGraph
@testable import ObjectGraphSQLite
@testable import ObjectGraphPostgres

/// Every store type, for tests that run the same checks on each: SQLite, the memory store,
/// the three atomic stores (in a new file of a temporary folder), and PostgreSQL when a
/// server is reachable (``PostgresTestServer``; a new schema per store).
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, memory, xml, binary, html, postgres

    var description: String { rawValue }

    /// The kinds these tests run on: every kind, PostgreSQL only when a server is reachable.
    static var allCases: [StoreKind] {
        [.sqlite, .memory, .xml, .binary, .html] + (PostgresTestServer.isAvailable ? [.postgres] : [])
    }

    /// The file-backed atomic kinds.
    static let atomic: [StoreKind] = [.xml, .binary, .html]

    var type: PersistentStoreType {
        switch self {
        case .sqlite: .sqlite
        case .memory: .memory
        case .xml: .xml
        case .binary: .binary
        case .html: .html
        case .postgres: PersistentStoreType(name: "postgres", recognizes: { _ in false }) { model, _ in
            try PostgresStore(location: PostgresTestServer.newLocation(), model: model)
        }
        }
    }

    /// Adds a new, empty store of this kind to `coordinator` (SQLite in memory; atomic
    /// stores in a new file of a new temporary folder).
    @discardableResult
    func addStore(to coordinator: PersistentStoreCoordinator) throws -> any PersistentStore {
        switch self {
        case .sqlite: try coordinator.addStore(at: ":memory:")
        case .memory: coordinator.addMemoryStore()
        case .postgres: try coordinator.addPostgresStore(at: PostgresTestServer.newLocation())
        default: try coordinator.addStore(type: type, at: Self.newFile(extension: rawValue))
        }
    }

    /// Removes the folders of `coordinator`'s atomic stores' files (call when done with them).
    static func removeFiles(of coordinator: PersistentStoreCoordinator) {
        for case let store as any AtomicStorePath in coordinator.stores { removeFolder(of: store.path) }
    }

    /// Removes the folder ``newFile(extension:)`` made for `path`.
    static func removeFolder(of path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        precondition(folder.lastPathComponent.hasPrefix("og-atomic-"))
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path in a new temporary folder (``removeFolder(of:)`` removes it).
    static func newFile(extension: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("og-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("store.\(`extension`)").path
    }
}

/// Runs blocking `body` on a Dispatch queue and waits for it without blocking a thread: long
/// tests keep off the main actor and the cooperative pool, which other tests watch.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// Every object of a coordinator's stores as text, read by a fresh context: per object, its
/// ID and every stored attribute value and relationship destination (sorted IDs). Two
/// stores hold the same graph exactly when their snapshots are equal.
@MainActor
func graphSnapshot(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
    let context = MainContext(coordinator: coordinator)
    var lines: [String] = []
    for entity in coordinator.model.entities where !entity.isAbstract {
        var request = FetchRequest(entityName: entity.name)
        request.includesSubentities = false
        let objects = try context.fetch(request).sorted { $0.objectID < $1.objectID }
        for object in objects {
            var line = coordinator.model.describe(object.objectID)
            for attribute in entity.attributes where !attribute.isTransient {
                line += " \(attribute.name)=\(object.storedValue(of: attribute))"
            }
            for relationship in entity.relationships {
                let ids = relationship.isToMany
                    ? try object.objects(forKey: relationship.name).map(\.objectID)
                    : [(object[relationship.name] as? ManagedObject)?.objectID].compactMap { $0 }
                line += " \(relationship.name)=[" + ids.sorted().map { coordinator.model.describe($0) }.joined(separator: ",") + "]"
            }
            lines.append(line)
        }
    }
    return lines
}
