public import Foundation
import Glibc
import ObjectGraph

/// Reads a JSON Lines recipe file in batches, streaming it from disk.
///
/// The reader holds one chunk of the file at a time (1 MiB by default), so a
/// 150 MB file of 300,000 lines is read in constant memory. Each call to
/// ``nextBatch()`` returns up to ``batchSize`` lines' worth of results: the
/// records that parsed and an ``ImportLineError`` for each line that did not.
/// A bad line never stops the reading. Blank lines are skipped; a UTF-8 byte
/// order mark is accepted, and a line may end in LF, CRLF (Windows) or a lone CR
/// (classic Mac OS).
///
/// ```swift
/// let reader = try RecipeFileReader(url: URL(filePath: "SampleData/recipes.jsonl"))
/// var recordCount = 0, problems: [ImportLineError] = []
/// while let batch = try reader.nextBatch() {
///     recordCount += batch.records.count   // insert them: RecipeImporter does, a batch per save
///     problems += batch.errors
/// }
/// ```
///
/// A pipe or FIFO (`/dev/stdin`, a process substitution) is read as its writer sends it;
/// while the reader waits for more, it polls `isCancelled`, so that a cancel does not wait
/// for a writer that may never write again (see ``wasCancelled``).
///
/// A reader is not `Sendable`: it owns a file handle and a position. Create it
/// on the task that reads.
///
/// - Complexity: O(n) in the size of the file; each byte is looked at a small
///   constant number of times.
public final class RecipeFileReader {
    /// The file being read.
    public let url: URL
    /// The maximum number of non-blank lines per batch.
    public let batchSize: Int

    private let fileName: String
    private let handle: FileHandle
    private let chunkSize: Int
    /// Whether reads can wait for a writer (a pipe, FIFO or device): not a regular file.
    private let canWait: Bool
    private let isCancelled: () -> Bool
    private var buffer: [UInt8] = []
    private var consumed = 0
    private var lineNumber = 0
    private var reachedEnd = false
    private var finished = false
    /// Bytes read from the file so far; the reader reads ahead by up to one chunk.
    public private(set) var bytesRead = 0
    /// Whether ``nextBatch()`` returned `nil` because `isCancelled` became true while it
    /// waited for a pipe or FIFO to send more: the lines of the unfinished batch were dropped.
    public private(set) var wasCancelled = false
    /// The number of the first line of the last batch returned.
    private var firstLineOfBatch = 1
    /// Where each line of the last batch returned ends in the file (the offset after its
    /// line end), blank lines included: entry `i` is line `firstLineOfBatch + i`.
    private var lineEnds: [Int] = []

    /// Bytes of the lines returned so far (newlines included): the position in the file
    /// that a progress percentage should show, since ``bytesRead`` runs ahead by up to a chunk.
    public var bytesParsed: Int { bytesRead - (buffer.count - consumed) }

    /// Opens `url` for reading.
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - batchSize: the number of non-blank lines per batch; at least 1.
    ///   - chunkSize: the number of bytes read from disk at a time.
    ///   - isCancelled: polled every 20 ms while a read waits for a pipe or FIFO to send more.
    /// - Throws: ``ImportFileError`` when the file cannot be opened.
    public init(url: URL, batchSize: Int = 1_000, chunkSize: Int = 1 << 20,
                isCancelled: @escaping () -> Bool = { false }) throws(ImportFileError) {
        self.url = url
        self.batchSize = max(1, batchSize)
        self.chunkSize = max(1, chunkSize)
        self.fileName = url.lastPathComponent
        self.canWait = !Self.isRegularFile(url)
        self.isCancelled = isCancelled
        if canWait {
            // Opened without waiting: opening a FIFO no one writes to yet would wait in
            // open(2), where no cancel reaches; the reads wait in waitForBytes() instead.
            let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ImportFileError(path: url.path, message: "cannot open file: \(FileErrorReason.reason(errno: errno))")
            }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            return
        }
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ImportFileError(path: url.path, message: "cannot open file: \(FileErrorReason.of(error))")
        }
    }

    deinit {
        try? handle.close()
    }

    /// Returns the next batch, or `nil` once the whole file has been read (or, for a pipe or
    /// FIFO, once `isCancelled` stopped a wait for more: ``wasCancelled``).
    ///
    /// - Throws: ``ImportFileError`` when reading from disk fails. Problems with
    ///   the content are never thrown; they are in ``RecipeBatch/errors``.
    public func nextBatch() throws(ImportFileError) -> RecipeBatch? {
        if finished { return nil }
        firstLineOfBatch = lineNumber + 1
        lineEnds.removeAll(keepingCapacity: true)
        var records: [RecipeRecord] = []
        var errors: [ImportLineError] = []
        records.reserveCapacity(batchSize)
        var lines = 0
        while lines < batchSize {
            let (found, complete) = processBufferedLines(limit: batchSize - lines, into: &records, &errors)
            lines += found
            if lines >= batchSize { break }
            if !complete {
                // No full line left in the buffer.
                if reachedEnd {
                    lines += processFinalLine(into: &records, &errors)
                    finished = true
                    break
                }
                try readChunk()
                if wasCancelled {
                    finished = true
                    return nil
                }
            }
        }
        if finished && records.isEmpty && errors.isEmpty { return nil }
        return RecipeBatch(records: records, errors: errors, lastLineNumber: lineNumber)
    }

    /// The number of lines in the file at `url` (a last line without a line end counts; LF,
    /// CRLF and a lone CR each end one),
    /// counted in 1 MiB chunks: about a tenth of a second for 300,000 recipes, for a
    /// progress bar's total. `nil` when it cannot be read, or is not a regular file: a pipe
    /// or FIFO (`/dev/stdin`) can be read only once, and that once is the import's.
    public static func lineCount(of url: URL) -> Int? {
        guard isRegularFile(url), let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var count = 0
        var last: UInt8 = 0x0A
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            // A CR that ended the previous chunk ends a line of its own unless an LF follows it.
            if last == 0x0D && chunk.first != 0x0A { count += 1 }
            chunk.withUnsafeBytes { bytes in
                // memchr keeps this at C speed in debug builds too.
                guard let start = bytes.baseAddress else { return }
                let end = start + bytes.count
                var cursor = start
                while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
                    count += 1
                    cursor = UnsafeRawPointer(found) + 1
                }
                cursor = start
                while cursor < end, let found = memchr(cursor, 0x0D, end - cursor) {
                    cursor = UnsafeRawPointer(found) + 1
                    if cursor < end && cursor.load(as: UInt8.self) != 0x0A { count += 1 }
                }
            }
            last = chunk.last ?? last
        }
        // A last CR ends the last line, which is not counted yet: as for a line with no end.
        return last == 0x0A ? count : count + 1
    }

    /// The byte offset in the file just after `line` (after its line end, if it has one), for
    /// a line of the batch ``nextBatch()`` returned last; `nil` for any other line.
    ///
    /// An import's resume marker keeps it, to tell whether the lines it already read are
    /// still where they were when it runs again.
    func byteOffset(afterLine line: Int) -> Int? {
        let index = line - firstLineOfBatch
        return lineEnds.indices.contains(index) ? lineEnds[index] : nil
    }

    /// Whether `url` names a regular file, following symbolic links: not a pipe, FIFO or
    /// device, whose content can be read only once and may differ every time, and whose
    /// size is not known in advance (so an import of it shows no percentage and cannot resume).
    public static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Reads the rest of the file and returns all its records and errors at once.
    ///
    /// Convenient for small files such as the sample data; use ``nextBatch()`` for large ones.
    public static func readAll(url: URL) throws(ImportFileError) -> RecipeBatch {
        let reader = try RecipeFileReader(url: url, batchSize: 10_000)
        var all = RecipeBatch(records: [], errors: [], lastLineNumber: 0)
        while let batch = try reader.nextBatch() {
            all.records += batch.records
            all.errors += batch.errors
            all.lastLineNumber = batch.lastLineNumber
        }
        return all
    }

    // MARK: Internals

    /// Appends the next chunk of the file to the buffer, dropping consumed bytes.
    private func readChunk() throws(ImportFileError) {
        if consumed > 0 {
            buffer.removeSubrange(0..<consumed)
            consumed = 0
        }
        if canWait {
            try readAvailableBytes()
            return
        }
        let data: Data?
        do {
            data = try handle.read(upToCount: chunkSize)
        } catch {
            throw ImportFileError(path: url.path, message: "cannot read file: \(FileErrorReason.of(error))")
        }
        guard let data, !data.isEmpty else {
            reachedEnd = true
            return
        }
        bytesRead += data.count
        buffer.append(contentsOf: data)
    }

    /// Appends what a pipe or FIFO has to give, up to a chunk, once it has some (FileHandle's
    /// read would wait for a whole chunk); sets ``wasCancelled`` instead when `isCancelled`
    /// became true first.
    private func readAvailableBytes() throws(ImportFileError) {
        guard waitForBytes() else {
            wasCancelled = true
            return
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress! + start, chunkSize) }
        } while count < 0 && errno == EINTR
        let failure = errno
        buffer.removeLast(chunkSize - max(0, count))
        // Nothing after all (the descriptor does not wait): wait again.
        if count < 0 && (failure == EAGAIN || failure == EWOULDBLOCK) { return }
        guard count >= 0 else {
            throw ImportFileError(path: url.path, message: "cannot read file: \(FileErrorReason.reason(errno: failure))")
        }
        if count == 0 { reachedEnd = true }
        bytesRead += count
    }

    /// Waits until the pipe or FIFO has bytes to read, has ended, or reports an error (the
    /// read that follows tells which); returns `false` when `isCancelled` became true first.
    /// A FIFO no writer has opened yet has neither: Linux reports its end only once a
    /// writer has come and gone, so the wait lasts until one writes or closes.
    private func waitForBytes() -> Bool {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, 20)
            if ready != 0 && !(ready < 0 && errno == EINTR) { return true }
            if isCancelled() { return false }
        }
    }

    /// Parses complete lines from the buffer; returns how many non-blank lines it
    /// handled and whether it stopped for the limit (`true`) or for lack of a line end (`false`).
    ///
    /// A line ends at LF, CRLF or a lone CR; a CR last in the buffer waits for the next
    /// chunk (or the end of the file) to tell which.
    private func processBufferedLines(
        limit: Int, into records: inout [RecipeRecord], _ errors: inout [ImportLineError]
    ) -> (lines: Int, complete: Bool) {
        var handled = 0
        var position = consumed
        let bufferStart = bytesRead - buffer.count  // the file offset of buffer[0]
        let result: Bool = buffer.withUnsafeBufferPointer { all in
            while handled < limit {
                var end = position
                while end < all.count && all[end] != 0x0A && all[end] != 0x0D { end += 1 }
                guard end < all.count else { return false }
                var next = end + 1
                if all[end] == 0x0D {
                    if next < all.count {
                        if all[next] == 0x0A { next += 1 }
                    } else if !reachedEnd {
                        return false
                    }
                }
                lineNumber += 1
                lineEnds.append(bufferStart + next)
                if handleLine(UnsafeBufferPointer(rebasing: all[position..<end]),
                              isUnterminatedLastLine: false, into: &records, &errors) {
                    handled += 1
                }
                position = next
            }
            return true
        }
        consumed = position
        return (handled, result)
    }

    /// Handles the bytes after the last line end, if any; returns 1 if it was a non-blank line.
    private func processFinalLine(into records: inout [RecipeRecord], _ errors: inout [ImportLineError]) -> Int {
        guard consumed < buffer.count else { return 0 }
        lineNumber += 1
        lineEnds.append(bytesRead)
        let counted = buffer.withUnsafeBufferPointer { all in
            handleLine(UnsafeBufferPointer(rebasing: all[consumed...]),
                       isUnterminatedLastLine: true, into: &records, &errors)
        }
        consumed = buffer.count
        return counted ? 1 : 0
    }

    /// Parses one line; returns `false` for a blank line.
    private func handleLine(
        _ raw: UnsafeBufferPointer<UInt8>, isUnterminatedLastLine: Bool,
        into records: inout [RecipeRecord], _ errors: inout [ImportLineError]
    ) -> Bool {
        var line = raw
        if lineNumber == 1, line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
            line = UnsafeBufferPointer(rebasing: line.dropFirst(3))
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return false }
        var parser = RecipeLineParser(bytes: line, isUnterminatedLastLine: isUnterminatedLastLine)
        do {
            records.append(try parser.parseRecord(lineNumber: lineNumber))
        } catch {
            errors.append(ImportLineError(file: fileName, line: lineNumber, message: error.message))
        }
        return true
    }
}
