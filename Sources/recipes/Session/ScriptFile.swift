import Foundation
import Glibc

/// Reads script files and recognises comment lines.
enum ScriptFile {
    /// The lines of the file at `path` (UTF-8; `\r\n` accepted).
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
        guard var text = String(validating: bytes, as: UTF8.self) else { throw invalidUTF8(bytes, path: path) }
        if text.last?.isNewline == true { text.removeLast() }  // "\r\n" is one Character
        guard !text.isEmpty else { return [] }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }

    /// The error for a file that is not UTF-8, naming the line and the byte in it where
    /// the first bad sequence starts.
    private static func invalidUTF8(_ bytes: [UInt8], path: String) -> CommandError {
        var decoder = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0, line = 1, lineStart = 0
        loop: while true {
            switch decoder.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.first == 0x0A { line += 1; lineStart = offset + 1 }
                offset += encoded.count
            case .error(let length):
                _ = length
                break loop
            case .emptyInput:
                break loop
            }
        }
        return CommandError("script '\(path)' is not UTF-8 text: line \(line), byte \(offset - lineStart + 1); nothing of it was run")
    }

    /// Whether `line` is skipped: blank, or starting (after spaces) with `--` or `#`.
    static func isComment<Line: StringProtocol>(_ line: Line) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.allSatisfy(\.isWhitespace) || trimmed.hasPrefix("--") || trimmed.hasPrefix("#")
    }
}
