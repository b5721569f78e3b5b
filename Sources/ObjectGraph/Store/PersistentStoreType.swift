import Foundation

/// A kind of store a coordinator can open by name, and how to recognize its files.
///
/// ```swift
/// let type = try FileManager.default.fileExists(atPath: path)
///     ? PersistentStoreType.recognize(fileAt: path, among: PersistentStoreType.atomicTypes)
///     : .xml                                           // no file yet: a new XML store
/// if let type { try coordinator.addStore(type: type, at: path) }   // nil: no store's file
/// ```
/// `ObjectGraphSQLite` adds `.sqlite` and the list of every type, `PersistentStoreType.all`.
public struct PersistentStoreType: Sendable, Hashable, CustomStringConvertible {
    /// The type's name: `sqlite`, `xml`, `binary`, `html`, `memory`.
    public let name: String
    /// Whether a file starting with these bytes is of this type.
    let recognizes: @Sendable (_ prefix: [UInt8]) -> Bool
    /// Opens (or creates) a store of this type at a path, without adding it.
    let make: @Sendable (_ model: ObjectModel, _ path: String) throws -> any StoreRequestHandler
    /// The files a store of this type at a path consists of: the path itself, and any files
    /// the store keeps beside it (a SQLite store's write-ahead log).
    let files: @Sendable (_ path: String) -> [String]

    /// A type; store modules make these.
    package init(name: String, recognizes: @escaping @Sendable ([UInt8]) -> Bool,
                 files: @escaping @Sendable (String) -> [String] = { [$0] },
                 make: @escaping @Sendable (ObjectModel, String) throws -> any StoreRequestHandler) {
        self.name = name
        self.recognizes = recognizes
        self.files = files
        self.make = make
    }

    /// The type's name.
    public var description: String { name }
    /// Whether two types have the same name.
    public static func == (lhs: PersistentStoreType, rhs: PersistentStoreType) -> Bool { lhs.name == rhs.name }
    /// Hashes the type's name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// ``XMLStore``: files start with the XML prolog `<?xml`.
    public static let xml = atomic("xml", XMLStore.self) { textStart($0).starts(with: Array("<?xml".utf8)) }
    /// ``BinaryStore``: files start with its magic number.
    public static let binary = atomic("binary", BinaryStore.self) { $0.starts(with: BinaryStore.magic) }
    /// ``HTMLStore``: files start with `<!DOCTYPE html` (in any case).
    public static let html = atomic("html", HTMLStore.self) {
        textStart($0).prefix(14).map { $0 | 0x20 }.elementsEqual("<!doctype html".utf8.map { $0 | 0x20 })
    }
    /// ``MemoryStore``: no file (the path is ignored).
    public static let memory = PersistentStoreType(name: "memory", recognizes: { _ in false }, files: { _ in [] }) { model, _ in
        MemoryStore(model: model)
    }

    /// The atomic store types of this module.
    public static let atomicTypes: [PersistentStoreType] = [.xml, .binary, .html]

    private static func atomic<Node, Store: AtomicStore<Node>>(
        _ name: String, _ storeClass: Store.Type, recognizes: @escaping @Sendable ([UInt8]) -> Bool
    ) -> PersistentStoreType {
        PersistentStoreType(name: name, recognizes: recognizes) { model, path in
            let store = storeClass.init(path: path, model: model)
            try store.open()
            return store
        }
    }

    /// A text file's bytes after a UTF-8 byte-order mark and white space.
    private static func textStart(_ prefix: [UInt8]) -> ArraySlice<UInt8> {
        var start = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) { start += 1 }
        return prefix[start...]
    }

    /// The type among `types` whose files start like the file at `path`, or nil when none
    /// matches (or the file is empty).
    /// - Throws: ``ObjectGraphError`` (`storeFailure`) when the file cannot be read, naming
    ///   the reason (`cannot open the store at 'data': it is a directory`).
    public static func recognize(fileAt path: String, among types: [PersistentStoreType]) throws -> PersistentStoreType? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ObjectGraphError(.storeFailure, "cannot read '\(path)': no such file, or not readable")
        }
        defer { try? handle.close() }
        let prefix: [UInt8]
        do {
            prefix = [UInt8](try handle.read(upToCount: 512) ?? Data())
        } catch {
            throw ObjectGraphError(.storeFailure, "cannot open the store at '\(path)': \(FileErrorReason.of(error))",
                                   underlying: error)
        }
        return types.first { $0.recognizes(prefix) }
    }
}

extension PersistentStoreCoordinator {
    /// Opens (or creates) a store of the given type and adds it.
    ///
    /// ```swift
    /// try coordinator.addStore(type: .xml, at: "catalog.xml")
    /// ```
    /// - Throws: ``ObjectGraphError`` as the type's store throws when opened.
    @discardableResult
    public func addStore(type: PersistentStoreType, at path: String, configuration: [String]? = nil) throws -> any PersistentStore {
        let store = try type.make(model, path)
        try addOnce(store, at: path, configuration: configuration)
        return store
    }
}
