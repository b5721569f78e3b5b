import Foundation
import Testing

/// Every relative link in the README, the performance rounds, the tutorials and the
/// exercises points to a file that exists, so renumbering a tutorial or moving an article
/// cannot leave a dead link.
struct DocumentLinkTests {
    static let root = TranscriptTests.root

    static let documents: [String] = {
        let manager = FileManager.default
        var paths = ["README.md", "SampleData/README.md", "Benchmarks/ROUNDS.md"]
        for folder in ["Tutorials", "Exercises"] {
            let url = root.appendingPathComponent(folder)
            guard let walker = manager.enumerator(atPath: url.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".md") && !path.contains(".build/") {
                paths.append(folder + "/" + path)
            }
        }
        return paths.sorted()
    }()

    @Test(arguments: documents)
    func relativeLinksResolve(_ document: String) throws {
        let url = Self.root.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        let link = /\]\(([^)\s#]+)(#[^)]*)?\)/
        for match in text.matches(of: link) {
            let target = String(match.output.1)
            guard !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
            let resolved = url.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL
            #expect(FileManager.default.fileExists(atPath: resolved.path), "\(document): dead link '\(target)'")
        }
    }
}
