import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where an atomic store's ``AtomicStore/save(_:metadata:to:)`` writes the file: a
/// temporary file beside the store's file that becomes the store only when the whole save
/// succeeded (see <doc:Stores>).
///
/// ```swift
/// try file.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
/// try file.write(bytes)
/// ```
public final class AtomicStoreWriter {
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    /// Bytes handed to the writer so far.
    public private(set) var byteCount = 0
    /// For tests: the write fails once this many bytes were written.
    private let failsAfter: Int?

    /// A writer into the open file `descriptor` (or, with -1, one that only counts).
    init(descriptor: Int32, path: String, failsAfter: Int? = nil) {
        self.descriptor = descriptor
        self.path = path
        self.failsAfter = failsAfter
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends bytes.
    /// - Throws: ``ObjectGraphError`` (`storeFailure`) when the disk refuses them.
    public func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Appends text as UTF-8.
    public func write(_ text: String) throws { try write(text.utf8) }

    /// Writes the buffered bytes to the file.
    func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        var chunk = buffer[...]
        if let failsAfter, byteCount + chunk.count > failsAfter {
            chunk = chunk.prefix(max(0, failsAfter - byteCount))
            try writeAll(chunk)
            throw ObjectGraphError(.storeFailure, "cannot write '\(path)': the write failed after \(failsAfter) bytes (a failure injected by a test)")
        }
        try writeAll(chunk)
    }

    private func writeAll(_ chunk: ArraySlice<UInt8>) throws {
        defer { byteCount += chunk.count }
        guard descriptor >= 0 else { return }
        try chunk.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw AtomicFile.error("cannot write", path)
                }
                offset += written
            }
        }
    }
}

/// Writes a file whole or not at all: a temporary file in the same folder, flushed to disk,
/// then renamed over the old one, with the old one's permissions. The atomic stores save
/// through it, and so does the catalogue generator.
package enum AtomicFile {
    /// A temporary file holding the new contents, waiting to replace the file.
    package final class Staged: StagedWrite {
        let temporaryPath: String
        let path: String

        init(temporaryPath: String, path: String) {
            self.temporaryPath = temporaryPath
            self.path = path
        }

        /// Renames the temporary file over the file and flushes the folder, so the rename
        /// survives a crash.
        package func commit() throws {
            guard rename(temporaryPath, path) == 0 else {
                let error = AtomicFile.error("cannot replace", path)
                discard()
                throw error
            }
            let folder = open(AtomicFile.folder(of: path), O_RDONLY | O_DIRECTORY)
            if folder >= 0 {
                _ = fsync(folder)
                close(folder)
            }
        }

        /// Removes the temporary file, leaving the file as it was.
        package func discard() { unlink(temporaryPath) }
    }

    /// Writes a temporary file beside `path` with `body` and flushes it to disk; the
    /// temporary file is removed if anything fails. A folder at `path` is refused before
    /// `body` runs: the rename at the end could never replace it.
    /// - Parameter failsAfter: for tests, make the write fail after this many bytes.
    package static func stage(_ path: String, failsAfter: Int? = nil, _ body: (AtomicStoreWriter) throws -> Void) throws -> Staged {
        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFDIR {
            errno = EISDIR
            throw error("cannot replace", path)
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        removeAbandoned(beside: path)
        let temporaryPath = folder(of: path) + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error("cannot create a temporary file for", path) }
        do {
            defer { close(descriptor) }
            // The new file takes the old one's permissions: a private (0600) file stays private.
            var status = stat()
            if stat(path, &status) == 0, fchmod(descriptor, status.st_mode & 0o7777) != 0 {
                throw error("cannot give the permissions of", path)
            }
            let writer = AtomicStoreWriter(descriptor: descriptor, path: path, failsAfter: failsAfter)
            try body(writer)
            try writer.flush()
            guard fsync(descriptor) == 0 else { throw error("cannot flush", path) }
        } catch {
            unlink(temporaryPath)
            throw error
        }
        return Staged(temporaryPath: temporaryPath, path: path)
    }

    /// Removes the temporary files beside `path` of writers that are gone (a process killed
    /// in the middle of a save); those of running processes stay.
    static func removeAbandoned(beside path: String) {
        let name = URL(fileURLWithPath: path).lastPathComponent, folder = folder(of: path)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for file in files where file.hasPrefix(".\(name).") && file.hasSuffix(".tmp") {
            let parts = file.dropFirst(name.count + 2).split(separator: ".")
            guard parts.count == 3, let pid = pid_t(parts[0]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(folder + "/" + file)
        }
    }

    static func folder(of path: String) -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return folder.isEmpty ? "." : folder
    }

    /// A `storeFailure` naming what failed, the file and the system's reason (`errno`), with
    /// a ``Failure`` as its underlying error.
    static func error(_ action: String, _ path: String) -> ObjectGraphError {
        let failure = Failure(action: action, reason: String(cString: strerror(errno)))
        return ObjectGraphError(.storeFailure, "\(action) '\(path)': \(failure.reason); the file was left as it was",
                                underlying: failure)
    }

    /// What failed while writing a file, without the file's name, for callers that name it
    /// themselves (the generator reports an ``ImportFileError``-style `path: message`).
    package struct Failure: Error, Sendable {
        /// What could not be done: "cannot write", "cannot flush", "cannot replace",
        /// "cannot create a temporary file for", "cannot give the permissions of".
        package let action: String
        /// The system's reason.
        package let reason: String
    }
}
