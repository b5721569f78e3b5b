import Foundation
import Testing
@testable import ObjectGraph

/// A seeded mutation fuzzer for the atomic stores' readers (XML, binary, HTML), in memory:
/// each input goes through the reader (`load(from:into:metadata:)`) and the check that
/// builds the store's rows (`makeContents`), as opening a file does.
///
/// Nothing may crash or hang; a refused input's error names the place (`line N` for the
/// text formats, `byte N` for the binary one). Half the binary inputs get their checksum
/// recomputed, so the mutations reach the parser behind it.
///
/// `ATOMIC_FUZZ_COUNT` sets the inputs per reader (2,000 by default; `make soak` runs
/// 1,000,000), `ATOMIC_FUZZ_SEED` the seed.
@MainActor
struct AtomicReaderFuzzTests {
    nonisolated static let textFragments: [[UInt8]] = [
        "<", ">", "</", "/>", "&", "&amp;", "&lt;", "&#0;", "&#x110000;", "&#65;", "&bogus;", "\"", "'", "=", "<!--", "-->",
        "<![CDATA[", "]]>", "<?xml", "id=\"", "ref=\"", "Recipe/", "/p", "-1", "9223372036854775808", "1e999", "nan", "inf",
        "<td>", "</td>", "<tr id=\"Recipe-9\">", "<table id=\"Chef\">", "<th>", "true", "2026-13-40T25:61:61Z",
        String(repeating: "<a>", count: 300), "\n", "\r\n", "\u{0}", "é", "🙂",
    ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80]]

    nonisolated static let binaryFragments: [[UInt8]] = [
        [0], [1], [0x7F], [0x80], [0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], [2, 0x41, 0x41], [9], [5, 0xFF, 0xFE],
    ]

    @Test("Mutated files never crash the readers; every refusal names a line or byte", arguments: StoreKind.atomic)
    nonisolated func fuzz(kind: StoreKind) async throws {
        let (path, data) = try await AtomicStoreReaderTests.validFile(kind)
        defer { StoreKind.removeFolder(of: path) }
        let environment = ProcessInfo.processInfo.environment
        let count = environment["ATOMIC_FUZZ_COUNT"].flatMap(Int.init) ?? 2_000
        let seed = environment["ATOMIC_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_125
        let model = try TestModel.make()
        // Off the main actor and the cooperative pool: this is long, blocking work.
        let (accepted, failures) = try await offPool { () throws -> (Int, [String]) in
            let store: any AtomicReading = switch kind {
            case .xml: XMLStore(path: path, model: model)
            case .binary: BinaryStore(path: path, model: model)
            default: HTMLStore(path: path, model: model)
            }
            var random = SeededGenerator(seed: seed ^ UInt64(kind.rawValue.count))
            var corpus = [[UInt8](data)]
            var accepted = 0
            var failures: [String] = []
            for round in 0..<count {
                var bytes = Self.mutate(corpus[Int.random(in: 0..<corpus.count, using: &random)], kind: kind, &random)
                if kind == .binary, round % 2 == 0, bytes.count > 4 { Self.fixChecksum(&bytes) }
                switch store.read(Data(bytes)) {
                case nil:
                    accepted += 1
                    if corpus.count < 200, round % 7 == 0 { corpus.append(bytes) }
                case .some(let message):
                    let place = kind == .binary ? "byte " : "line "
                    if !message.contains(place), failures.count < 10 {
                        failures.append("round \(round): the error names no \(place.trimmingCharacters(in: .whitespaces)): \(message)")
                    }
                }
            }
            return (accepted, failures)
        }
        print("atomic reader fuzz, \(kind): seed \(seed), \(count) inputs, \(accepted) read, \(count - accepted) refused naming the place, \(failures.count) failures")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(accepted > 0 && accepted < count)
    }

    /// One to four mutations of `bytes`.
    nonisolated static func mutate(_ input: [UInt8], kind: StoreKind, _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        let fragments = kind == .binary ? binaryFragments : textFragments
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where position < bytes.count:
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1 where position < bytes.count:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &random)))
            case 2:
                bytes.insert(contentsOf: fragments[Int.random(in: 0..<fragments.count, using: &random)], at: position)
            case 3 where position < bytes.count:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
            case 4:
                bytes = Array(bytes[..<position])
            default:
                if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &random) }
            }
        }
        return bytes
    }

    /// Rewrites the binary format's trailing CRC-32 so the mutated body passes it.
    nonisolated static func fixChecksum(_ bytes: inout [UInt8]) {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[..<(bytes.count - 4)] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for index in 0..<4 { bytes[bytes.count - 4 + index] = UInt8((crc >> (8 * UInt32(index))) & 0xFF) }
    }
}

/// Reading a file's bytes as an atomic store opening it would, in memory.
protocol AtomicReading {
    /// nil when the store would open; otherwise the error's message.
    func read(_ data: Data) -> String?
}

extension AtomicStore: AtomicReading {
    func read(_ data: Data) -> String? {
        var objects: [StoredObject] = []
        var metadata: [String: String] = [:]
        do {
            try load(from: data, into: &objects, metadata: &metadata)
            _ = try makeContents(objects, metadata: metadata)
            return nil
        } catch let error as StoreFileError {
            return invalidFile(error).message
        } catch {
            return "\(error)"
        }
    }
}
