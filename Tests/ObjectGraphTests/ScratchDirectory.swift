import Foundation

/// A fresh directory under the system temporary directory, removed with everything in it
/// when the last reference goes: a suite that keeps one as a stored property cleans up
/// after each test, since Swift Testing makes a suite value per test.
final class ScratchDirectory: Sendable {
    /// The directory.
    let url: URL

    /// Creates `<temporary directory>/<prefix>-<UUID>`.
    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
