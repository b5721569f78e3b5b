import Foundation
import Glibc
import Testing

/// A really full disk: `recipes` on a store in a 4 MB tmpfs mounted in a mount namespace
/// of its own (`unshare --mount`, as root), with a ballast file taking most of it. An import
/// stops at the batch that does not fit and says the disk is full; a save fails the same
/// way and the shell keeps the unsaved change; once the ballast is removed (through
/// `/proc/PID/root`, the namespace's view of the files) the same save succeeds, the import
/// resumes to every recipe exactly once, and the store is sound.
/// (`SQLiteStore.Options.maximumPageCount` gives the same failure without a file system:
/// `StoreFileTests` in ObjectGraphTests.)
@Suite("A full disk", .serialized, .enabled(if: PrivateTmpfs.isAvailable, "needs root to mount a tmpfs in a mount namespace"))
struct DiskFullTests {
    @Test("Import, save, free space, save again, resume the import: every recipe once, a sound store")
    func fullDisk() async throws {
        let home = try TemporaryDirectory()
        let file = home.url.appendingPathComponent("recipes.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", "300", "--seed", "4", "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let mount = home.url.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let store = mount + "/catalog.sqlite"
        let shell = try ShellProcess(executable: "/usr/bin/unshare", ["--mount", "sh", "-c", """
            mount -t tmpfs -o size=4096k tmpfs "$0" && head -c 3400000 /dev/zero > "$0/ballast" && exec "$1" "$2"
            """, mount, RecipesBinary.path, store], home: home.url)
        defer { shell.kill() }
        let full = "error: the disk holding the store at '\(store)' is full; free some space and try again"

        shell.send("import \(file) --batch 20")
        try await shell.waitFor("the import to stop on a full disk") { $0.contains(full) }
        shell.send("count Recipe")
        let saved = try await shell.waitFor("the count") { Self.numbers(in: $0).count >= 1 }
        let importedBefore = try #require(Self.numbers(in: saved).first)
        #expect(importedBefore > 0 && importedBefore < 300 && importedBefore % 20 == 0, "\(saved)")

        // A recipe with 200 KB of instructions: more than the disk has left.
        shell.send("insert Recipe name=\"Patience\" sourceID=big-1 instructions=\"\(String(repeating: "Stir. ", count: 34_000))\"")
        shell.send("save")
        try await shell.waitFor("the save to fail") { $0.components(separatedBy: full).count == 3 }
        shell.send("count Recipe where sourceID == 'big-1'")
        let kept = try await shell.waitFor("the unsaved recipe counted") { Self.numbers(in: $0).count >= 2 }
        #expect(Self.numbers(in: kept)[1] == 1, "the unsaved change is kept: \(kept)")

        // Free the space, from outside the namespace.
        try FileManager.default.removeItem(atPath: "/proc/\(shell.processIdentifier)/root\(mount)/ballast")
        shell.send("save")
        try await shell.waitFor("the retried save") { $0.contains("saved 1 change") }
        shell.send("import \(file) --batch 20")
        shell.send("count Recipe")
        let resumed = try await shell.waitFor("the resumed import's count") { Self.numbers(in: $0).count >= 3 }
        #expect(Self.numbers(in: resumed)[2] == 301, "\(resumed)")
        #expect(resumed.contains("resuming after line \(importedBefore)"), "\(resumed)")

        // Check the store from outside, on a copy of its file and log.
        let copy = home.url.appendingPathComponent("copy.sqlite").path
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: "/proc/\(shell.processIdentifier)/root\(store)\(suffix)", toPath: copy + suffix)
        }
        let check = try await ChildProcess.run(["sqlite3", copy, #"PRAGMA integrity_check; SELECT count(*), count(DISTINCT "sourceID") FROM "Recipe""#])
        #expect(check.output == "ok\n301|301\n", "\(check.output)")
        shell.send(".quit")
        print("disk full: the import stopped after \(importedBefore) recipes, a save failed and kept its change; after freeing space both went through")
    }

    /// The lines of `output` that are just a number, in order.
    static func numbers(in output: String) -> [Int] {
        output.split(separator: "\n").compactMap { Int($0) }
    }
}

/// Whether this user may mount a tmpfs in a mount namespace of its own.
enum PrivateTmpfs {
    static let isAvailable: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? ChildProcess.run(["unshare", "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).status) == 0
    }()
}
