/// Where the first byte sequence that is not UTF-8 starts in some bytes, for errors that name
/// the place: a file of text is refused as a whole, and the user needs to find the bad byte.
package struct InvalidUTF8: Equatable {
    /// The line, from 1.
    package var line: Int
    /// The offset of the bad sequence from the start of the bytes, from 0.
    package var offset: Int
    /// The byte in its line where the bad sequence starts, from 1.
    package var column: Int

    /// The first bad sequence in `bytes`, or nil when they are all UTF-8.
    package static func first(in bytes: some Sequence<UInt8>) -> InvalidUTF8? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0, line = 1, lineStart = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                if scalar.first == 0x0A { line += 1; lineStart = offset + 1 }
                offset += scalar.count
            case .error: return InvalidUTF8(line: line, offset: offset, column: offset - lineStart + 1)
            case .emptyInput: return nil
            }
        }
    }
}
