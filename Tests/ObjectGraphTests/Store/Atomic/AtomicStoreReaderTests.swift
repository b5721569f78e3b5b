import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The atomic stores' readers: a malformed file is an error naming the file, the line or
/// byte offset and the problem, never a crash.
@MainActor
struct AtomicStoreReaderTests {
    /// A valid file of `kind` holding ``AtomicStoreTests/fill(_:)``'s graph.
    static func validFile(_ kind: StoreKind) throws -> (path: String, data: Data) {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try kind.addStore(to: coordinator)
        try AtomicStoreTests.fill(MainContext(coordinator: coordinator))
        let path = (store as! any AtomicStorePath).path
        return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The error opening `data` as a `kind` store gives, or nil when it opens.
    nonisolated static func openingError(_ kind: StoreKind, _ data: Data, at path: String) throws -> ObjectGraphError? {
        try data.write(to: URL(fileURLWithPath: path))
        do {
            try PersistentStoreCoordinator(model: try TestModel.make()).addStore(type: kind.type, at: path)
            return nil
        } catch let error as ObjectGraphError {
            return error
        }
    }

    /// Replaces the first `old` in the file's text by `new`.
    static func edit(_ data: Data, _ old: String, _ new: String) throws -> Data {
        let text = String(decoding: data, as: UTF8.self)
        let range = try #require(text.range(of: old), "'\(old)' is in the file")
        return Data(text.replacingCharacters(in: range, with: new).utf8)
    }

    /// The line of the file's text where `needle` first appears.
    static func line(of needle: String, in data: Data) -> Int {
        let text = String(decoding: data, as: UTF8.self)
        return text[..<text.range(of: needle)!.lowerBound].filter { $0 == "\n" }.count + 1
    }

    @Test("Malformed text files are rejected with the file, the line and the problem", arguments: [
        (StoreKind.xml, "<Recipe id=\"2\">", "<Cake id=\"2\">", "unknown entity 'Cake'"),
        (.xml, "<servings>3</servings>", "<servings>three</servings>", "'three' is not an Int16 (attribute 'servings' of Recipe)"),
        (.xml, "<Recipe id=\"4\">", "<Recipe id=\"4\"><chef ref=\"Chef/9\"/>", "'chef' of Recipe/p4 points at Chef/p9, which the file does not have"),
        (.xml, "</Tag>", "</Tga>", "unexpected </Tga> inside <Tag>"),
        (.xml, "</Tag>", "</Tag", "expected '>' to close the end tag 'Tag'"),
        (.html, "<tr id=\"Recipe-2\"><td>2</td><td>Recipe 1</td>", "<tr id=\"Recipe-2\"><td>2</td><td>Recipe 1<b></td>",
         "unexpected <b> in a table"),
        (.html, "<th>servings</th>", "<th>portions</th>", "Recipe has no attribute or relationship 'portions'"),
        (.html, "<td>true</td>", "<td>maybe</td>", "'maybe' is not a Bool (attribute 'vegetarian' of Recipe)"),
    ])
    func textErrors(kind: StoreKind, old: String, new: String, problem: String) throws {
        let (path, data) = try Self.validFile(kind)
        defer { StoreKind.removeFolder(of: path) }
        let broken = try Self.edit(data, old, new)
        let error = try #require(try Self.openingError(kind, broken, at: path))
        #expect(error.code == .notADatabase)
        let line = Self.line(of: new.components(separatedBy: "\n").last!, in: broken)
        #expect(error.message.hasPrefix("'\(path)' is not a valid \(kind == .xml ? "XMLStore" : "HTMLStore") file: line "))
        // The line of the edit, or the next one when the problem shows only there.
        #expect(error.message.contains("line \(line): \(problem)") || error.message.contains("line \(line + 1): \(problem)"),
                "\(error.message) should name line \(line)")
    }

    @Test("Malformed binary files are rejected with the file, the byte offset and the problem")
    func binaryErrors() throws {
        let (path, data) = try Self.validFile(.binary)
        defer { StoreKind.removeFolder(of: path) }
        func message(_ bytes: Data) throws -> String { try #require(try Self.openingError(.binary, bytes, at: path)).message }
        let prefix = "'\(path)' is not a valid BinaryStore file: "
        var other = data
        other[0] = 0x88
        #expect(try message(other) == prefix + "byte 0: not a binary store file (the magic number 89 4F 47 42 0D 0A 1A 0A is missing)")
        var future = data
        future[8] = 2
        #expect(try message(future) == prefix + "byte 8: this is format 2 of the binary store; this version reads format 1")
        var flipped = data
        flipped[data.count / 2] ^= 0x10
        #expect(try message(flipped) == prefix + "byte \(data.count - 4): the checksum does not match: the file is damaged or truncated")
        #expect(try message(data.prefix(data.count - 10)).hasPrefix(prefix + "byte \(data.count - 14): the checksum does not match"))
    }

    @Test("Empty files, and a binary file cut inside its header, say so", arguments: [
        (StoreKind.xml, 0, "line 1: the file is empty"),
        (.html, 0, "line 1: the file is empty"),
        (.binary, 0, "byte 0: the file is empty"),
        (.binary, 5, "byte 5: the file ends after 5 bytes, inside its header: it is truncated"),
        (.binary, 9, "byte 9: the file ends after 9 bytes, inside its header: it is truncated"),
    ])
    func emptyAndTruncated(kind: StoreKind, length: Int, problem: String) throws {
        let (path, data) = try Self.validFile(kind)
        defer { StoreKind.removeFolder(of: path) }
        let error = try #require(try Self.openingError(kind, data.prefix(length), at: path))
        #expect(error.code == .notADatabase)
        #expect(error.message == "'\(path)' is not a valid \(kind == .xml ? "XMLStore" : kind == .html ? "HTMLStore" : "BinaryStore") file: \(problem)")
    }

    @Test("A file of another store type is refused naming that type and how to open it", arguments: StoreKind.atomic)
    func otherStoreType(kind: StoreKind) throws {
        let path = try StoreKind.newFile(extension: "dat")
        defer { StoreKind.removeFolder(of: path) }
        let name = kind == .xml ? "XMLStore" : kind == .html ? "HTMLStore" : "BinaryStore"
        for other in [StoreKind.sqlite] + StoreKind.atomic where other != kind {
            let file = try StoreKind.newFile(extension: other.rawValue)
            defer { StoreKind.removeFolder(of: file) }
            try PersistentStoreCoordinator(model: try TestModel.make()).addStore(type: other.type, at: file)
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let error = try #require(try Self.openingError(kind, data, at: path), "\(other) as \(kind)")
            #expect(error.code == .notADatabase)
            #expect(error.message.hasPrefix("'\(path)' is not a valid \(name) file: "), "\(error.message)")
            let hint = other == .sqlite ? "; it is a SQLite store's file: open it with addStore(at:)"
                : "; it is \(other == .xml ? "an" : "a") \(other) store's file: open it with addStore(type: .\(other), at:)"
            #expect(error.message.hasSuffix(hint), "\(other) as \(kind): \(error.message)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data, "the file is left as it was")
        }
        // A damaged file of its own type gets no such hint.
        let (own, data) = try Self.validFile(kind)
        defer { StoreKind.removeFolder(of: own) }
        let error = try #require(try Self.openingError(kind, data.prefix(data.count / 2), at: own))
        #expect(!error.message.contains("; it is "), "\(error.message)")
    }

    @Test("A file whose objects repeat a unique value is refused, naming both objects and the value",
          arguments: [StoreKind.xml, .html])
    func duplicateUniqueValues(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = (try kind.addStore(to: coordinator) as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.insert("Chef")["name"] = "Bo"
        try context.save()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let broken = try Self.edit(data, ">Bo<", ">Ana<")
        let error = try #require(try Self.openingError(kind, broken, at: path))
        #expect(error.code == .notADatabase)
        let (first, second) = (Self.line(of: ">Ana<", in: data), Self.line(of: ">Bo<", in: data))
        #expect(error.message == """
            '\(path)' is not a valid \(kind == .xml ? "XMLStore" : "HTMLStore") file: line \(second - (kind == .xml ? 1 : 0)): \
            Chef/p2 has name = Ana, as Chef/p1 (line \(first - (kind == .xml ? 1 : 0))) has, and Chef objects are unique by name
            """)
    }

    @Test("Fuzzed files (truncated, flipped, spliced) give errors, never a crash", arguments: StoreKind.atomic)
    nonisolated func fuzz(kind: StoreKind) async throws {
        let (path, data) = try await Self.validFile(kind)
        defer { StoreKind.removeFolder(of: path) }
        // 150 damaged files, opened off the main actor and the cooperative pool.
        let problems = try await offPool { () throws -> [String] in
            var generator = SeededGenerator(seed: 42)
            var problems: [String] = []
            var rejected = 0
            for round in 0..<150 {
                var bytes = [UInt8](data)
                switch round % 3 {
                case 0: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
                case 1:
                    for _ in 0..<(1 + generator.next() % 4) { bytes[Int(generator.next() % UInt64(bytes.count))] ^= UInt8(1 << (generator.next() % 8)) }
                default:
                    let at = Int(generator.next() % UInt64(bytes.count))
                    bytes.insert(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "&"), 0xFF, 0x00].shuffled(using: &generator).prefix(2), at: at)
                }
                guard let error = try Self.openingError(kind, Data(bytes), at: path) else { continue }
                rejected += 1
                if !(error.message.hasPrefix("'\(path)' is not a valid") || error.code == .constraintViolation)
                    || !error.message.contains(kind == .binary ? "byte " : "line ") {
                    problems.append("round \(round): \(error.message)")
                }
            }
            return rejected > 100 ? problems : problems + ["only \(rejected) of 150 damaged files were rejected"]
        }
        #expect(problems == [])
    }
}
