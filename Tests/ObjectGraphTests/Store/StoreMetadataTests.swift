import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The metadata of every store type: any text round-trips, keys and values alike, whether
/// set on the store (written at once) or on a context (written by its next save); a
/// context's metadata that no save wrote is gone when the store is opened again.
@MainActor
struct StoreMetadataTests {
    /// Values a text format could mangle: empty, spaces at the ends, line breaks of every
    /// kind, markup, control characters, non-ASCII, and a long value.
    static let values: [String: String] = [
        "empty": "",
        "spaces": "  both ends  ",
        "lines": "one\ntwo\r\nthree\rfour\n",
        "markup": "<td>&amp; \"quoted\" 'single' ]]> </metadata>",
        "control": "tab\there \u{1}\u{7f}",
        "unicode": "Zoë 😀 \u{301}e",
        "long": String(repeating: "0123456789", count: 10_000),
        "key with spaces & <markup>\n": "its value",
        "é😀": "a key of non-ASCII text",
    ]

    /// A new store of `kind` in `coordinator`: SQLite in a file (so that it can be opened
    /// again), the other kinds as ``StoreKind`` adds them.
    func addStore(_ kind: StoreKind, to coordinator: PersistentStoreCoordinator) throws -> any PersistentStore {
        guard kind == .sqlite else { return try kind.addStore(to: coordinator) }
        return try coordinator.addStore(at: StoreKind.newFile(extension: "sqlite"))
    }

    /// The path of a store of `kind` that can be opened again (nil for memory and PostgreSQL).
    func path(of store: any PersistentStore) -> String? {
        (store as? any AtomicStorePath)?.path ?? (store as? SQLiteStore)?.path
    }

    /// The metadata of the store at `path`, opened again by a new coordinator.
    func reopened(_ kind: StoreKind, at path: String) throws -> [String: String] {
        try PersistentStoreCoordinator(model: TestModel.make()).addStore(type: kind.type, at: path).metadata
    }

    @Test("Any text round-trips as a metadata key or value, set on the store or on a context", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try addStore(kind, to: coordinator)
        let path = path(of: store)
        defer { if let path { StoreKind.removeFolder(of: path) } }
        let context = MainContext(coordinator: coordinator)
        for (key, value) in Self.values { context.setMetadata(value, forKey: "context " + key) }
        try context.save()  // metadata alone is worth a save
        for (key, value) in Self.values { try store.setMetadata(value, forKey: "store " + key) }
        var expected: [String: String] = [:]
        for (key, value) in Self.values {
            expected["context " + key] = value
            expected["store " + key] = value
        }
        func callers(_ metadata: [String: String]) -> [String: String] { metadata.filter { !$0.key.hasPrefix("_") } }
        #expect(callers(store.metadata) == expected, "\(kind)")
        if let path {
            let read = callers(try reopened(kind, at: path))
            for (key, value) in expected where read[key] != value {
                Issue.record("\(kind): '\(key)' reads back as \(read[key].map { "'\($0.prefix(60))'" } ?? "nothing"), not '\(value.prefix(60))'")
            }
            #expect(read.keys.sorted() == expected.keys.sorted(), "\(kind)")
        }
        // nil removes a key, on the store and through a context.
        try store.setMetadata(nil, forKey: "store empty")
        context.setMetadata(nil, forKey: "context empty")
        try context.save()
        #expect(store.metadata["store empty"] == nil && store.metadata["context empty"] == nil, "\(kind)")
        if let path {
            let read = try reopened(kind, at: path)
            #expect(read["store empty"] == nil && read["context empty"] == nil && read["store long"] == Self.values["long"], "\(kind)")
        }
    }

    @Test("Metadata set on a context and never saved is gone when the store opens again; set on the store, it is kept",
          arguments: StoreKind.allCases)
    func closingWithoutSave(kind: StoreKind) throws {
        var path: String?
        do {
            let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
            let store = try addStore(kind, to: coordinator)
            path = self.path(of: store)
            let context = MainContext(coordinator: coordinator)
            context.setMetadata("pending", forKey: "unsaved")
            try store.setMetadata("at once", forKey: "direct")
            #expect(store.metadata["unsaved"] == nil, "\(kind): a context's metadata waits for its save")
            #expect(store.metadata["direct"] == "at once", "\(kind)")
            // The context and the coordinator go away here, without a save.
        }
        guard let path else { return }  // memory and PostgreSQL stores: nothing to open again
        defer { StoreKind.removeFolder(of: path) }
        let read = try reopened(kind, at: path)
        #expect(read["unsaved"] == nil, "\(kind)")
        #expect(read["direct"] == "at once", "\(kind)")
    }
}
