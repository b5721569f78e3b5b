import Foundation
import Glibc
import ObjectGraph

/// Reads script files and recognises comment lines.
enum ScriptFile {
    /// The lines of the file at `path` (UTF-8, a leading byte-order mark dropped; `\r\n` accepted).
    ///
    /// - Throws: ``CommandError`` naming the path and the system's reason, for example
    ///   `cannot open script 'setup.rec': No such file or directory`, or the line and byte
    ///   where the file stops being UTF-8 (nothing of it is run: its text cannot be trusted).
    static func lines(at path: String) throws(CommandError) -> [Substring] {
        guard let file = fopen(path, "r") else {
            throw CommandError("cannot open script '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            bytes.append(contentsOf: buffer[..<count])
            if count < buffer.count { break }
        }
        if ferror(file) != 0 {
            throw CommandError("cannot read script '\(path)': \(String(cString: strerror(errno)))")
        }
        if let bad = InvalidUTF8.first(in: bytes) {
            throw CommandError("script '\(path)' is not UTF-8 text: line \(bad.line), byte \(bad.column); nothing of it was run")
        }
        var text = droppingByteOrderMark(String(decoding: bytes, as: UTF8.self))
        if text.last?.isNewline == true { text.removeLast() }  // "\r\n" is one Character
        guard !text.isEmpty else { return [] }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }

    /// `path` made absolute, with `.`, `..` and symbolic links resolved: one name per file,
    /// however a script names it.
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// `text` without the byte-order mark (U+FEFF) that some editors write at the start of a
    /// UTF-8 file, which would otherwise stick to the first command's name.
    static func droppingByteOrderMark(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    }

    /// Whether `line` is skipped: blank, or starting (after spaces) with `--` or `#`.
    static func isComment<Line: StringProtocol>(_ line: Line) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.allSatisfy(\.isWhitespace) || trimmed.hasPrefix("--") || trimmed.hasPrefix("#")
    }
}
