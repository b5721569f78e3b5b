import Foundation

/// Finds the tutorials: the folder `$RECIPES_TUTORIALS` names, else the `Tutorials` folder
/// of the current directory or of one of its parents (a checkout of this package), else the
/// one of the checkout this program was built from.
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
    /// the current directory, else the `Tutorials` folder of `sourceCheckout`.
    ///
    /// - Throws: ``CommandError`` when `$RECIPES_TUTORIALS` names no folder, or no folder is found.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                       sourceCheckout: URL? = ExerciseFolder.checkoutOfThisProgram) throws -> TutorialLibrary {
        if let path = environment["RECIPES_TUTORIALS"], !path.isEmpty {
            guard isFolder(URL(fileURLWithPath: path)) else {
                throw CommandError("RECIPES_TUTORIALS is '\(path)', which is not a folder; set it to the Tutorials folder of a checkout")
            }
            return TutorialLibrary(folder: URL(fileURLWithPath: path))
        }
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            let candidate = directory.appendingPathComponent("Tutorials")
            if isFolder(candidate) { return TutorialLibrary(folder: candidate) }
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path else { break }
            directory = parent
        }
        if let candidate = sourceCheckout?.appendingPathComponent("Tutorials"), isFolder(candidate) {
            return TutorialLibrary(folder: candidate)
        }
        throw CommandError("no Tutorials folder here or above \(FileManager.default.currentDirectoryPath); "
                           + "run this from a checkout of the package, or set RECIPES_TUTORIALS")
    }

    private static func isFolder(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The tutorial a learner named: its number (`3`, `03`) or the start of its file name,
    /// with or without the number (`03-pred`, `predicates`).
    func file(for name: String) throws -> URL {
        let files = files
        let matches = files.filter { file in
            let base = file.lastPathComponent
            if let number = Int(name) {
                return Int(base.prefix { $0.isNumber }) == number
            }
            let unnumbered = base.drop { $0.isNumber }.drop { $0 == "-" }
            return base.hasPrefix(name) || unnumbered.hasPrefix(name)
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
