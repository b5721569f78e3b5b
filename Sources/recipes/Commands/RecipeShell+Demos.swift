import RecipeCatalog

extension RecipeShell {
    /// `demo` lists the demos; `demo NAME [--size N]` runs one and prints its table.
    func demo(_ text: String, _ context: CommandContext) async throws {
        let (names, size) = try Self.demoArguments(CommandWords.split(text))
        guard let name = names.first else {
            guard size == nil else { throw CommandError("--size needs a demo to size: demo NAME [--size N]") }
            context.print("demos (each builds its own data; --size N scales it, from \(Demos.minimumSize) recipes):")
            let width = Demos.catalogue.map(\.name.count).max() ?? 0
            for entry in Demos.catalogue {
                context.print("  demo \(entry.name)" + String(repeating: " ", count: width - entry.name.count)
                              + "  \(entry.summary) (\(entry.defaultSize) recipes)")
            }
            return
        }
        guard names.count == 1 else {
            throw CommandError("demo runs one demo, found \(names.count): \(names.map { "'\($0)'" }.joined(separator: " ")); usage: demo NAME [--size N]")
        }
        let known = Demos.catalogue.map(\.name)
        guard known.contains(name) else {
            var message = "unknown demo '\(name)'"
            if let guess = name.closest(in: known) { message += "; did you mean '\(guess)'?" }
            throw CommandError(message + " (the demos are: \(known.joined(separator: ", ")))")
        }
        let report = try await Demos.run(name, size: size, deterministic: isDeterministic)
        context.print(report.title)
        var widths = report.columns.map(\.count)
        for row in report.rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ").trimmedTrailing
        }
        context.print(line(report.columns))
        context.print(line(widths.map { String(repeating: "-", count: $0) }))
        for row in report.rows { context.print(line(row)) }
        context.print(report.explanation)
    }

    /// The names and the `--size` (or `--size=N`) of `demo`'s words; the range of the size
    /// is ``Demos/run(_:size:deterministic:)``'s to check, which names the demo's minimum.
    /// - Throws: ``CommandError`` for an unknown option (any word that starts with a dash), a
    ///   `--size` given twice, or a value that is not a whole number.
    static func demoArguments(_ words: [String]) throws -> (names: [String], size: Int?) {
        var names: [String] = [], size: Int?
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            guard word.hasPrefix("-") else { names.append(word); continue }
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == "--size" else {
                var message = "unknown option '\(parts[0])' for demo"
                let bare = parts[0].drop { $0 == "-" }  // -s, --si: the start of --size
                if let guess = String(parts[0]).closest(in: ["--size"]) ?? (!bare.isEmpty && "size".hasPrefix(bare) ? "--size" : nil) {
                    message += "; did you mean '\(guess)'?"
                }
                throw CommandError(message + " (usage: demo NAME [--size N])")
            }
            guard size == nil else { throw CommandError("--size is given twice; give it once") }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else if index < words.endIndex {
                value = words[index]
                index += 1
            } else {
                throw CommandError("--size needs a number of recipes: demo NAME --size N")
            }
            guard let number = Int(value) else {
                if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    throw CommandError("--size \(value) is too large: a demo builds at most \(Demos.maximumSize) recipes")
                }
                throw CommandError("--size needs a whole number of recipes, not '\(value)'")
            }
            size = number
        }
        return (names, size)
    }
}
