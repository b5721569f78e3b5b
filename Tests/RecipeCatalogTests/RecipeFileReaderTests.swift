import Foundation
import Testing
@testable import RecipeCatalog

@Suite("RecipeFileReader")
struct RecipeFileReaderTests {
    /// Reads `contents` as a file named recipes.jsonl.
    func read(_ contents: String, batchSize: Int = 1_000, chunkSize: Int = 1 << 20) throws -> RecipeBatch {
        let url = try TestFiles.write(contents)
        defer { TestFiles.remove(url) }
        let reader = try RecipeFileReader(url: url, batchSize: batchSize, chunkSize: chunkSize)
        var all = RecipeBatch(records: [], errors: [], lastLineNumber: 0)
        while let batch = try reader.nextBatch() {
            all.records += batch.records
            all.errors += batch.errors
            all.lastLineNumber = batch.lastLineNumber
        }
        return all
    }

    /// The rendered error messages for `contents`.
    func messages(_ contents: String) throws -> [String] {
        try read(contents).errors.map(\.description)
    }

    @Test("Every field of a full line is parsed")
    func fullLine() throws {
        let line = #"{"id": "r-000001", "name": "Crème Brûlée", "chef": "Zoë Ångström", "cuisine": "French", "course": "dessert", "prepMinutes": 20, "cookMinutes": 45, "servings": 6, "rating": 4.5, "published": "2024-03-01", "ingredients": [{"name": "heavy cream", "quantity": 500, "unit": "ml"}, {"name": "egg yolk", "quantity": 6}, {"name": "salt"}], "instructions": "Bake it.", "photo": "iVBORw0K"}"#
        let batch = try read(line + "\n")
        #expect(batch.errors.isEmpty)
        let expected = RecipeRecord(
            sourceID: "r-000001", name: "Crème Brûlée", chef: "Zoë Ångström", cuisine: "French",
            course: "dessert", prepMinutes: 20, cookMinutes: 45, servings: 6, rating: 4.5,
            published: Date(timeIntervalSince1970: 1_709_251_200),
            ingredients: [IngredientLine(name: "heavy cream", quantity: 500, unit: "ml"),
                          IngredientLine(name: "egg yolk", quantity: 6),
                          IngredientLine(name: "salt")],
            instructions: "Bake it.", photo: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]), lineNumber: 1)
        #expect(batch.records == [expected])
    }

    @Test("Missing, null and unknown fields")
    func missingFields() throws {
        let batch = try read(#"{"id": "a", "name": "Toast", "rating": null, "extra": {"x": [1, true, null, "y"]}, "servings": 2}"# + "\n")
        #expect(batch.errors.isEmpty)
        #expect(batch.records == [RecipeRecord(sourceID: "a", name: "Toast", servings: 2, lineNumber: 1)])
    }

    @Test("Numbers: negatives, fractions, exponents")
    func numbers() throws {
        let batch = try read(#"{"id": "a", "name": "n", "rating": 1e0, "ingredients": [{"name": "x", "quantity": 0.25}, {"name": "y", "quantity": -2.5E1}, {"name": "z", "quantity": 12345678901234567890}]}"#)
        #expect(batch.errors.isEmpty)
        #expect(batch.records.first?.rating == 1)
        #expect(batch.records.first?.ingredients.map(\.quantity) == [0.25, -25, 1.2345678901234567e19])
    }

    @Test("String escapes, \\u escapes and surrogate pairs")
    func escapes() throws {
        let batch = try read(#"{"id": "e", "name": "Cr\u00e8me \"br\u00FBl\u00e9e\" \\ \/ \ud83c\udf70\t\n"}"#)
        #expect(batch.errors.isEmpty)
        #expect(batch.records.first?.name == "Crème \"brûlée\" \\ / 🍰\t\n")
    }

    /// Found by the JSON Lines fuzzer (`make soak`): Foundation's `JSONSerialization` drops
    /// a U+FEFF that starts a string value; JSON keeps it, and so does the reader. (At the
    /// start of the file, before the first line, it is a byte order mark and skipped.)
    @Test("A U+FEFF at the start of a string value is kept")
    func byteOrderMarkInsideAString() throws {
        let batch = try read("\u{FEFF}{\"id\": \"\u{FEFF}\", \"name\": \"\u{FEFF}Toast\"}\n")
        #expect(batch.errors.isEmpty)
        #expect(batch.records.first?.sourceID.unicodeScalars.map(\.value) == [0xFEFF])
        #expect(batch.records.first?.name == "\u{FEFF}Toast")
    }

    @Test("Dates: plain day, date-time with zone, date-time with offset")
    func dates() throws {
        let batch = try read("""
            {"id": "1", "name": "a", "published": "2024-02-29"}
            {"id": "2", "name": "b", "published": "2024-03-01T12:30:00Z"}
            {"id": "3", "name": "c", "published": "2024-03-01T12:30:00.5+02:00"}
            """)
        #expect(batch.errors.isEmpty)
        #expect(batch.records.map(\.published) == [
            Date(timeIntervalSince1970: 1_709_164_800),
            Date(timeIntervalSince1970: 1_709_296_200),
            Date(timeIntervalSince1970: 1_709_289_000.5),
        ])
    }

    @Test("Dates before 1582, and before year 1 with a sign, are proleptic Gregorian as ISO 8601 has them")
    func datesBeforeTheGregorianReform() throws {
        let batch = try read("""
            {"id": "1", "name": "a", "published": "1500-01-01"}
            {"id": "2", "name": "b", "published": "-0044-03-15T12:00:00Z"}
            {"id": "3", "name": "c", "published": "-44-03-15"}
            """)
        #expect(batch.records.map(\.published) == [
            Date(timeIntervalSince1970: -14_831_769_600), Date(timeIntervalSince1970: -63_549_316_800),
        ])
        #expect(batch.errors.map(\.description) == [
            #"recipes.jsonl:3: "published" must be a date as YYYY-MM-DD or ISO 8601, found "-44-03-15""#,
        ])
    }

    @Test("Blank lines are skipped and keep the numbering")
    func blankLines() throws {
        let batch = try read("\n   \n" + #"{"id": "a", "name": "x"}"# + "\r\n\n" + #"{"id": "b", "name": "y"}"# + "\n\n")
        #expect(batch.errors.isEmpty)
        #expect(batch.records.map(\.lineNumber) == [3, 5])
    }

    @Test("A lone CR (classic Mac OS) ends a line as LF and CRLF do, whatever the batches and chunks",
          arguments: [1, 2, 3, 1 << 20])
    func carriageReturnLineEnds(chunkSize: Int) throws {
        let lines = [(#"{"id": "a", "name": "x"}"#, "\r"), (#"{"id": "b"}"#, "\r"), ("", "\r\n"),
                     (#"{"id": "c", "name": "z"}"#, "\r\n"), (#"{"id": "d", "name": "w"}"#, "\r")]
        // Where each line ends in the file: what a resume marker keeps.
        let ends = lines.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + ($1.0 + $1.1).utf8.count) }
        let url = try TestFiles.write(lines.map { $0.0 + $0.1 }.joined())
        defer { TestFiles.remove(url) }
        let reader = try RecipeFileReader(url: url, batchSize: 1, chunkSize: chunkSize)
        var records: [RecipeRecord] = [], errors: [String] = [], offsets: [Int?] = []
        while let batch = try reader.nextBatch() {
            records += batch.records
            errors += batch.errors.map(\.description)
            offsets.append(reader.byteOffset(afterLine: batch.lastLineNumber))
        }
        #expect(records.map(\.lineNumber) == [1, 4, 5])
        #expect(records.map(\.name) == ["x", "z", "w"])
        #expect(errors == [#"recipes.jsonl:2: missing "name""#])
        #expect(offsets == [ends[0], ends[1], ends[3], ends[4]])
        #expect(RecipeFileReader.lineCount(of: url) == 5)
    }

    @Test("Each kind of bad line gives its file:line message", arguments: [
        (#"{"id": "a", "name": "x", "rating": "high"}"#, #"recipes.jsonl:2: "rating" must be a number, found string"#),
        (#"{"id": "a", "name": "x", "prepMinutes": "20"}"#, #"recipes.jsonl:2: "prepMinutes" must be an integer, found string"#),
        (#"{"id": "a", "name": "x", "servings": 2.5}"#, #"recipes.jsonl:2: "servings" must be an integer, found 2.5"#),
        (#"{"id": "a", "name": "x", "servings": -123456789012345678901}"#, #"recipes.jsonl:2: "servings" is -123456789012345678901, outside the range of Int64"#),
        (#"{"id": "a", "name": "x", "servings": 1e2}"#, #"recipes.jsonl:2: "servings" must be an integer, found 1e2"#),
        (#"{"id": "a", "name": "x", "rating": 1e999}"#, #"recipes.jsonl:2: "rating" is 1e999, outside the range of Double"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": "salt", "quantity": -2E+400}]}"#, #"recipes.jsonl:2: "ingredients[0].quantity" is -2E+400, outside the range of Double"#),
        (#"{"id": "a", "name": "x", "extra": 1e999}"#, #"recipes.jsonl:2: malformed JSON at column 35: number out of range"#),
        (#"{"id": "a", "name": "x", "chef": 7}"#, #"recipes.jsonl:2: "chef" must be a string, found number"#),
        (#"{"id": "a", "name": "x", "ingredients": {}}"#, #"recipes.jsonl:2: "ingredients" must be an array, found object"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": "salt", "quantity": "a pinch"}]}"#, #"recipes.jsonl:2: "ingredients[0].quantity" must be a number, found string"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": "salt"}, {"quantity": 1}]}"#, #"recipes.jsonl:2: missing "ingredients[1].name""#),
        (#"{"id": "a", "name": "x", "ingredients": ["salt"]}"#, #"recipes.jsonl:2: "ingredients[0]" must be an object, found string"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": "a"}, {"name": "b"}, {"name": "c", "unit": 3}]}"#, #"recipes.jsonl:2: "ingredients[2].unit" must be a string, found number"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": ["salt"]}]}"#, #"recipes.jsonl:2: "ingredients[0].name" must be a string, found array"#),
        (#"{"id": "a", "name": "x", "ingredients": [{"name": "salt"}, {"name": ""}]}"#, #"recipes.jsonl:2: "ingredients[1].name" must not be empty"#),
        (#"{"name": "x"}"#, #"recipes.jsonl:2: missing "id""#),
        (#"{"id": "", "name": "x"}"#, #"recipes.jsonl:2: "id" must not be empty"#),
        (#"{"id": "a"}"#, #"recipes.jsonl:2: missing "name""#),
        (#"{"id": "a", "name": ""}"#, #"recipes.jsonl:2: "name" must not be empty"#),
        (#"{"id": "a", "name": "x", "chef": ""}"#, #"recipes.jsonl:2: "chef" must not be empty or blank; leave it out, or null, for none"#),
        (#"{"id": "a", "name": "x", "chef": " \t "}"#, #"recipes.jsonl:2: "chef" must not be empty or blank; leave it out, or null, for none"#),
        (#"{"id": "a", "name": "x", "cuisine": "\u00a0"}"#, #"recipes.jsonl:2: "cuisine" must not be empty or blank; leave it out, or null, for none"#),
        (#"{"id": "a", "name": "x", "published": "2024-02-30"}"#, #"recipes.jsonl:2: "published" must be a date as YYYY-MM-DD or ISO 8601, found "2024-02-30""#),
        (#"{"id": "a", "name": "x", "photo": "not base64!"}"#, #"recipes.jsonl:2: "photo" is not valid base64"#),
        (#"{"id": "a", "name": "x",}"#, #"recipes.jsonl:2: malformed JSON at column 25: expected a quoted field name"#),
        (#"{"id": "a" "name": "x"}"#, #"recipes.jsonl:2: malformed JSON at column 12: expected ',' or '}' after a value"#),
        (#"{"id": "a", "name": "x"} x"#, #"recipes.jsonl:2: malformed JSON at column 26: unexpected text after the object"#),
        (#"{"id": "ä", "name": tru}"#, #"recipes.jsonl:2: malformed JSON at column 21: invalid literal; expected a value"#),
        (#"{"id": "a", "name": "x\q"}"#, #"recipes.jsonl:2: malformed JSON at column 23: invalid escape in "name""#),
        ("{\"id\": \"a\", \"name\": \"x\", \"ingredients\": [{\"name\": \"salt\", \"unit\": \"g\u{9}\"}]}",
         #"recipes.jsonl:2: malformed JSON at column 69: control character in "ingredients[0].unit"; escape it"#),
        ("{\"id\": \"a\", \"name\": \"x\", \"extra\": \"\u{9}\"}",
         "recipes.jsonl:2: malformed JSON at column 36: control character in string; escape it"),
        (#"{"id": "a", "name": "\udc00"}"#, #"recipes.jsonl:2: malformed JSON at column 22: lone low surrogate in \u escape"#),
        (#"{"id": "a", "name": 012}"#, #"recipes.jsonl:2: malformed JSON at column 22: numbers may not have leading zeros"#),
        (#"{"id": "a", "name": "x""#, #"recipes.jsonl:2: malformed JSON at column 24: line ends in the middle of the object"#),
        (#"["id", "a"]"#, #"recipes.jsonl:2: expected a JSON object, found array"#),
        ("null", "recipes.jsonl:2: expected a JSON object, found null"),
        ("not json", "recipes.jsonl:2: malformed JSON at column 1: invalid literal; expected a value"),
        ("hello world", "recipes.jsonl:2: malformed JSON at column 1: expected a value"),
        ("\u{FEFF}" + #"{"id": "a", "name": "x"}"#,
         "recipes.jsonl:2: malformed JSON at column 1: a byte order mark (U+FEFF) starts the line; only a file's first line may begin with one"),
    ])
    func badLine(line: String, message: String) throws {
        let batch = try read(#"{"id": "ok", "name": "fine"}"# + "\n" + line + "\n" + #"{"id": "ok2", "name": "also fine"}"# + "\n")
        #expect(batch.errors.map(\.description) == [message])
        #expect(batch.records.map(\.sourceID) == ["ok", "ok2"])
    }

    @Test("Invalid UTF-8 in a string is reported")
    func invalidUTF8() throws {
        let url = try TestFiles.write("")
        defer { TestFiles.remove(url) }
        var bytes = Array(#"{"id": "a", "name": "x"#.utf8)
        bytes += [0xFF, UInt8(ascii: "\""), UInt8(ascii: "}"), 0x0A]
        try Data(bytes).write(to: url)
        let batch = try RecipeFileReader.readAll(url: url)
        #expect(batch.errors.map(\.description) == ["recipes.jsonl:1: malformed JSON at column 23: invalid UTF-8 in \"name\""])
    }

    @Test("A truncated last line is reported as such")
    func truncatedLastLine() throws {
        let batch = try read(#"{"id": "a", "name": "x"}"# + "\n" + #"{"id": "b", "name": "y", "ingredients": [{"name": "sa"#)
        #expect(batch.records.map(\.sourceID) == ["a"])
        #expect(batch.errors.map(\.description) == ["recipes.jsonl:2: file ends in the middle of a JSON object (truncated last line)"])
    }

    @Test("A complete last line without a newline is fine")
    func lastLineWithoutNewline() throws {
        let batch = try read(#"{"id": "a", "name": "x"}"#)
        #expect(batch.errors.isEmpty)
        #expect(batch.records.count == 1)
    }

    @Test("Streaming across batch and chunk boundaries loses nothing")
    func streaming() throws {
        var text = ""
        for i in 1...2_500 {
            text += i % 500 == 0
                ? "{\"id\": \"bad-\(i)\"}\n"
                : #"{"id": "r-\#(i)", "name": "Recipe \#(i) – ünïcode", "ingredients": [{"name": "salt"}]}"# + "\n"
        }
        let url = try TestFiles.write(text)
        defer { TestFiles.remove(url) }
        let reader = try RecipeFileReader(url: url, batchSize: 300, chunkSize: 1_000)
        var records: [RecipeRecord] = []
        var errors: [ImportLineError] = []
        var batches = 0
        while let batch = try reader.nextBatch() {
            #expect(batch.records.count + batch.errors.count <= 300)
            records += batch.records
            errors += batch.errors
            batches += 1
        }
        #expect(batches == 9)
        #expect(records.count == 2_495)
        #expect(records.map(\.lineNumber) == (1...2_500).filter { $0 % 500 != 0 })
        #expect(records.last?.name == "Recipe 2499 – ünïcode")
        #expect(errors.map(\.line) == [500, 1_000, 1_500, 2_000, 2_500])
        #expect(errors.first?.message == "missing \"name\"")
        #expect(try reader.nextBatch() == nil)
    }

    @Test("A missing file is an ImportFileError")
    func missingFile() {
        #expect(throws: ImportFileError.self) {
            _ = try RecipeFileReader(url: URL(fileURLWithPath: "/nonexistent/recipes.jsonl"))
        }
    }
}
