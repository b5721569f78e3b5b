import Foundation
import Testing

/// `.width` through the built binary: tables fitted to a set width, and left alone otherwise.
@Suite("Table width without a terminal")
struct TableFittingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func run(_ commands: [String]) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(["--memory", "--deterministic", "-c", "import SampleData/recipes.jsonl"]
                                    + commands.flatMap { ["-c", $0] }, in: Self.root, timeout: .seconds(60))
    }

    @Test(".width 60 shrinks the widest text columns, and prints rows as records when that is not enough")
    func fittedToSixty() async throws {
        let run = try await run([".width 60", ".width", "search soup", "fetch Recipe where rating >= 4.5 sort name limit 2"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            width: 60 (tables fit 60 columns)
            objectID     name        chef       cuisine   course  rating
            -----------  ----------  ---------  --------  ------  ------
            Recipe/p128  Hot and S…  Chen Mei…  Chinese   soup    3.0
            Recipe/p48   Miso Soup   Zoë Ångs…  Japanese  soup    3.0
            Recipe/p6    Soupe à l…  Océane D…  French    soup    2.0
            (3 objects)
            -[ RECORD 1 ]-----------------------------------------------
            objectID        | Recipe/p43
            name            | Apfelstrudel
            sourceID        | r-000043
            instructions    | Knead flour, egg, water and a little butt…
            course          | dessert
            prepMinutes     | 45
            cookMinutes     | 40
            servings        | 8
            rating          | 5.0
            published       | 2023-06-10
            hasPhoto        | false
            ingredientCount | 8
            chef            | Jürgen Weißmann
            cuisine         | German
            photo           |
            -[ RECORD 2 ]-----------------------------------------------
            objectID        | Recipe/p145
            name            | Apple Pie
            sourceID        | r-000145
            instructions    | Toss sliced apples with sugar, spices, le…
            course          | dessert
            prepMinutes     | 40
            cookMinutes     | 60
            servings        | 8
            rating          | 5.0
            published       | 2020-06-02
            hasPhoto        | false
            ingredientCount | 9
            chef            | Camille O'Brien
            cuisine         | American
            photo           |
            (2 objects)

            """)
    }

    @Test("Piped output is not fitted: long text keeps the 32-character cut of table mode")
    func pipedIsUnchanged() async throws {
        let run = try await run([".width", "search soup"])
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            width: auto (standard output is not a terminal: tables are not fitted)
            objectID     name               chef           cuisine   course  rating
            -----------  -----------------  -------------  --------  ------  ------
            Recipe/p128  Hot and Sour Soup  Chen Meiling   Chinese   soup    3.0
            Recipe/p48   Miso Soup          Zoë Ångström   Japanese  soup    3.0
            Recipe/p6    Soupe à l'Oignon   Océane Dubois  French    soup    2.0
            (3 objects)

            """)
    }

    @Test(".width off never cuts; json, csv and line modes ignore the width")
    func offAndOtherModes() async throws {
        let run = try await run([".width off", ".width", "fetch Recipe where sourceID == 'r-000048'",
                                 ".width 20", ".mode csv", "fetch Chef where name == 'Zoë Ångström'",
                                 ".mode line", "fetch Cuisine where name == 'Japanese'"])
        #expect(run.standardError == "")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines[1] == "width: off (values are never cut)")
        #expect(lines[4].contains(" Steep the kombu in water and heat it gently to make a light stock. Remove the kombu"
                                   + " and add cubed tofu and wakame. Dissolve the miso in a ladle of stock and stir it in"
                                   + " without boiling. Top with scallion.  soup "))
        #expect(Array(lines[6...]) == ["objectID,name", "Chef/p6,Zoë Ångström",
                                       "objectID = Cuisine/p7", "    name = Japanese", "(1 object)"])
    }

    @Test(".width rejects what it cannot use, naming it")
    func badWidths() async throws {
        let run = try await RecipesBinary.run(["--memory", "-c", ".width wide", "-c", ".width 12"])
        #expect(run.standardError == """
            -c:1: error: .width takes auto, off or a number of columns, found 'wide'
            -c:2: error: .width needs at least 20 columns, found 12

            """)
        #expect(run.status == 1)
    }
}

/// Table mode in a real, narrow terminal (tmux), on the sample catalogue.
@Suite("Table width in a terminal", .enabled(if: TmuxTerminal.isAvailable,
                                              "tmux is not installed: the terminal tests are skipped"))
struct TerminalTableWidthTests {
    @Test("In a 100-column terminal no line of a recipe listing is wider than 100 columns")
    func hundredColumns() async throws {
        let home = try TemporaryDirectory()
        let terminal = try await TmuxTerminal(home: home.url, columns: 100)
        // The first run creates the sample catalogue in HOME.
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        await terminal.type("fetch Recipe where rating >= 4.5 sort name limit 5")
        await terminal.press("Enter")
        try await terminal.waitFor("the listing") { $0.contains("(5 objects)") }
        // What the command printed: the lines after the typed one.
        let transcript = await terminal.transcript()
        let lines = transcript.split(separator: "\n").map { $0.trimmedTrailing }
            .drop { !$0.hasPrefix("recipes> fetch Recipe") }.dropFirst()
        #expect(lines.contains { $0.contains("Apfelstrudel") } && lines.contains { $0.contains("Bibimbap") })
        let widest = lines.max { $0.count < $1.count } ?? ""
        #expect(widest.count <= 100, "\(widest.count) columns: \(widest)\n\(transcript)")
    }

    @Test("A resized terminal is honoured by the next command")
    func resized() async throws {
        let home = try TemporaryDirectory()
        let terminal = try await TmuxTerminal(arguments: ["--memory"], home: home.url)
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        await terminal.type("import \(TableFittingTests.root.path)/SampleData/recipes.jsonl")
        await terminal.press("Enter")
        try await terminal.waitFor("the import") { $0.contains("imported 169 recipes") }
        await terminal.type("search soup")
        await terminal.press("Enter")
        try await terminal.waitFor("the wide listing") { $0.contains("Recipe/p128  Hot and Sour Soup  Chen Meiling ") }
        await terminal.resize(columns: 60)
        await terminal.type("search soup")
        await terminal.press("Enter")
        try await terminal.waitFor("the narrow listing") { $0.contains("Recipe/p128  Hot and S…  Chen Mei…  Chinese") }
    }
}

extension Substring {
    /// The text without trailing spaces (tmux keeps them when it joins wrapped lines).
    fileprivate var trimmedTrailing: Substring {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
