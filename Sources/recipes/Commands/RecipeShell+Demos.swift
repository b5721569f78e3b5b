import RecipeCatalog

extension RecipeShell {
    /// `demo` lists the demos; `demo NAME [--size N]` runs one and prints its table.
    func demo(_ text: String, _ context: CommandContext) async throws {
        var words = try CommandWords.split(text)
        var size: Int?
        if let flag = words.firstIndex(of: "--size") {
            guard flag + 1 < words.count, let value = Int(words[flag + 1]), value > 0 else {
                throw CommandError("--size needs a positive number")
            }
            size = value
            words.removeSubrange(flag...(flag + 1))
        }
        guard let name = words.first else {
            context.print("demos (each builds its own data; --size N scales it, from \(Demos.minimumSize) recipes):")
            let width = Demos.catalogue.map(\.name.count).max() ?? 0
            for entry in Demos.catalogue {
                context.print("  demo \(entry.name)" + String(repeating: " ", count: width - entry.name.count)
                              + "  \(entry.summary) (\(entry.defaultSize) recipes)")
            }
            return
        }
        guard words.count == 1 else { throw CommandError("usage: demo NAME [--size N]") }
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
}
