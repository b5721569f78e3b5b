public import ObjectGraph

extension PersistentStoreType {
    /// `SQLiteStore`: files start with SQLite's header, `SQLite format 3` and a zero byte.
    public static let sqlite = PersistentStoreType(
        name: "sqlite", recognizes: { $0.starts(with: Array("SQLite format 3\0".utf8)) },
        files: { path in ["", "-wal", "-shm", "-journal"].map { path + $0 } }
    ) { model, path in
        try SQLiteStore(path: path, model: model)
    }

    /// Every store type, by the name the shell uses: `sqlite`, `xml`, `binary`, `html`, `memory`.
    public static let all: [PersistentStoreType] = [.sqlite] + atomicTypes + [.memory]

    /// The type called `name` (`sqlite`, `xml`, `binary`, `html`, `memory`), or nil.
    public init?(named name: String) {
        guard let type = Self.all.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = type
    }

    /// The type of the file at `path` by its first bytes (SQLite header, XML prolog, the binary
    /// format's magic number, HTML doctype), whatever its name; nil when none matches.
    /// - Throws: ``ObjectGraphError`` (`storeFailure`) when the file cannot be read.
    public static func recognize(fileAt path: String) throws -> PersistentStoreType? {
        try recognize(fileAt: path, among: all)
    }
}
