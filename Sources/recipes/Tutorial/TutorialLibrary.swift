import Foundation

/// Finds the tutorials: the `Tutorials` folder of the current directory or of one of its
/// parents (a checkout of this package), or the folder `$RECIPES_TUTORIALS` names.
///
/// ```swift
/// let library = try TutorialLibrary.locate()
/// let file = try library.file(for: "3")   // …/Tutorials/03-….md
/// ```
struct TutorialLibrary {
    /// The folder holding the tutorials.
    let folder: URL

    /// The Markdown files, sorted by name (their numbers); the folder's README is not one.
    var files: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
            .map { folder.appendingPathComponent($0) }
    }

    /// The library in `$RECIPES_TUTORIALS`, else the nearest `Tutorials` folder at or above
    /// the current directory.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TutorialLibrary {
        if let path = environment["RECIPES_TUTORIALS"], !path.isEmpty {
            return TutorialLibrary(folder: URL(fileURLWithPath: path))
        }
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            let candidate = directory.appendingPathComponent("Tutorials")
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), isFolder.boolValue {
                return TutorialLibrary(folder: candidate)
            }
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path else { break }
            directory = parent
        }
        throw CommandError("no Tutorials folder here or above \(FileManager.default.currentDirectoryPath); "
                           + "run this from a checkout of the package, or set RECIPES_TUTORIALS")
    }

    /// The tutorial a learner named: its number (`3`, `03`) or the start of its file name.
    func file(for name: String) throws -> URL {
        let files = files
        let matches = files.filter { file in
            let base = file.lastPathComponent
            if let number = Int(name) {
                return Int(base.prefix { $0.isNumber }) == number
            }
            return base.hasPrefix(name) || base == name + ".md"
        }
        guard matches.count == 1, let file = matches.first else {
            let list = files.map { $0.deletingPathExtension().lastPathComponent }.joined(separator: ", ")
            let problem = matches.isEmpty ? "no tutorial '\(name)'" : "'\(name)' names \(matches.count) tutorials"
            throw CommandError("\(problem) in \(folder.path); there are: \(list)")
        }
        return file
    }

    /// One line per tutorial: its number and title.
    func listing() -> [String] {
        files.map { file in
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return "  " + TutorialDocument(markdown: text).title
        }
    }
}
