import Foundation

/// The `Exercises/` package of a source checkout, and the exercises in it.
///
/// Found, in this order, at `$RECIPES_EXERCISES`; as `Exercises/` in the current directory
/// or one of its parents (or the current directory itself, inside `Exercises/`); in the
/// checkout this program was built from. An exercise is a folder `NN-name` holding a
/// `README.md` whose first line is `# NN · Title`, and a `hint.md`.
struct ExerciseFolder: Sendable {
    /// One exercise.
    struct Entry: Sendable, Equatable {
        /// Its number, from 1.
        var number: Int
        /// Its folder's name, for example `01-batch-save`.
        var name: String
        /// The title from its README.
        var title: String
        /// Its folder.
        var url: URL

        /// `01`, `02`, …: as in folder and product names.
        var paddedNumber: String { number < 10 ? "0\(number)" : String(number) }
    }

    /// The `Exercises/` folder.
    let url: URL

    /// Finds the folder; see the type's documentation for the order.
    /// - Throws: ``CommandError`` saying where it looked.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                       currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                       sourceCheckout: URL? = checkoutOfThisProgram) throws(CommandError) -> ExerciseFolder {
        if let configured = environment["RECIPES_EXERCISES"], !configured.isEmpty {
            let url = URL(fileURLWithPath: configured, relativeTo: currentDirectory).standardizedFileURL
            guard isExerciseFolder(url) else {
                let inside = url.appendingPathComponent("Exercises")
                if !FileManager.default.fileExists(atPath: url.path) {
                    throw CommandError("RECIPES_EXERCISES is '\(configured)', which does not exist; set it to the Exercises folder of the source checkout")
                }
                if isExerciseFolder(inside) {
                    throw CommandError("RECIPES_EXERCISES is '\(configured)', a checkout, not its exercises: set it to '\(inside.path)'")
                }
                throw CommandError("RECIPES_EXERCISES is '\(configured)', which has no Package.swift of the exercises")
            }
            return ExerciseFolder(url: url)
        }
        var directory = currentDirectory.standardizedFileURL
        while true {
            if directory.lastPathComponent == "Exercises", isExerciseFolder(directory) { return ExerciseFolder(url: directory) }
            let candidate = directory.appendingPathComponent("Exercises")
            if isExerciseFolder(candidate) { return ExerciseFolder(url: candidate) }
            if directory.path == "/" { break }
            directory.deleteLastPathComponent()
        }
        if let sourceCheckout, isExerciseFolder(sourceCheckout.appendingPathComponent("Exercises")) {
            return ExerciseFolder(url: sourceCheckout.appendingPathComponent("Exercises"))
        }
        throw CommandError("cannot find the Exercises folder: run recipes inside the source checkout, or set RECIPES_EXERCISES to its Exercises folder")
    }

    /// The repository this program's sources are in, when they are still there.
    static let checkoutOfThisProgram: URL? = {
        // Sources/recipes/Exercises/ExerciseFolder.swift → the repository root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: root.path) ? root : nil
    }()

    private static func isExerciseFolder(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
            && FileManager.default.fileExists(atPath: url.appendingPathComponent("Sources/ExerciseKit").path)
    }

    /// The exercises, by number.
    /// - Throws: ``CommandError`` for a folder that cannot be read or a README without its title line.
    func entries() throws(CommandError) -> [Entry] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw CommandError("cannot read \(url.path): \(error.localizedDescription)")
        }
        var entries: [Entry] = []
        for name in names.sorted() {
            guard let dash = name.firstIndex(of: "-"), let number = Int(name[..<dash]), number > 0 else { continue }
            let readme = url.appendingPathComponent(name).appendingPathComponent("README.md")
            guard let text = try? String(contentsOf: readme, encoding: .utf8) else { continue }
            let firstLine = text.prefix { $0 != "\n" }
            guard firstLine.hasPrefix("# "), let dot = firstLine.firstIndex(of: "·") else {
                throw CommandError("\(readme.path):1: the first line must be '# \(name.prefix(2)) · Title'")
            }
            let title = firstLine[firstLine.index(after: dot)...].trimmingCharacters(in: .whitespaces)
            entries.append(Entry(number: number, name: name, title: title, url: url.appendingPathComponent(name)))
        }
        return entries
    }

    /// Exercise `number`.
    /// - Throws: ``CommandError`` naming the exercises there are.
    func entry(_ number: Int) throws(CommandError) -> Entry {
        let all = try entries()
        guard let entry = all.first(where: { $0.number == number }) else {
            let range = all.isEmpty ? "none" : "\(all[0].number)–\(all[all.count - 1].number)"
            throw CommandError("there is no exercise \(number); the exercises are numbered \(range) (recipes exercise list)")
        }
        return entry
    }
}
