import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The reason a file operation failed, in the system's words, for messages of the form
/// `<what failed> '<path>': <reason>`.
///
/// On Linux, Foundation's file errors describe themselves as `Error Domain=NSCocoaErrorDomain
/// Code=256 "(null)" UserInfo={…}` or "The operation could not be completed"; the POSIX
/// error they wrap says what happened.
///
/// ```swift
/// do { try FileManager.default.copyItem(atPath: source, toPath: target) }
/// catch { throw ObjectGraphError(.storeFailure, "cannot copy '\(source)': \(FileErrorReason.of(error))") }
/// ```
package enum FileErrorReason {
    /// The reason `error` gives: "it is a directory" for `EISDIR`, otherwise the text of the
    /// POSIX error it is or wraps ("No such file or directory"), else its localized description.
    package static func of(_ error: any Error) -> String {
        let error = error as NSError
        return posixCode(of: error).map(reason(errno:)) ?? error.localizedDescription
    }

    /// The path a Foundation file error names (`NSFilePath`), if any.
    package static func path(of error: any Error) -> String? {
        (error as NSError).userInfo[NSFilePathErrorKey] as? String
    }

    /// "it is a directory" for `EISDIR`, otherwise `strerror(code)`.
    package static func reason(errno code: Int32) -> String {
        code == EISDIR ? "it is a directory" : String(cString: strerror(code))
    }

    /// The POSIX error code `error` is, or wraps through `NSUnderlyingErrorKey` (an `NSError`
    /// or, from `FileManager` on Linux, a `POSIXError`).
    private static func posixCode(of error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        return (error.userInfo[NSUnderlyingErrorKey] as? any Error).flatMap { posixCode(of: $0 as NSError) }
    }
}
