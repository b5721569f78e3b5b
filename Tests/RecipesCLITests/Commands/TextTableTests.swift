import Testing
@testable import recipes

/// Table mode's layout: the 32-character cap, fitting a width, and records when it cannot.
@Suite("TextTable")
struct TextTableTests {
    static let table = TextTable(
        header: ["objectID", "name", "chef", "rating"],
        rows: [["Recipe/p128", "Hot and Sour Soup", "Chen Meiling", "3.0"],
               ["Recipe/p48", "Miso Soup", "Zoë Ångström", "3.0"]],
        isCuttable: [false, true, true, false])

    @Test("Without a width, columns take their widest cell")
    func natural() {
        #expect(Self.table.lines(fittingIn: nil) == [
            "objectID     name               chef          rating",
            "-----------  -----------------  ------------  ------",
            "Recipe/p128  Hot and Sour Soup  Chen Meiling  3.0",
            "Recipe/p48   Miso Soup          Zoë Ångström  3.0",
        ])
    }

    @Test("A table that fits is unchanged")
    func fits() {
        #expect(Self.table.lines(fittingIn: 52) == Self.table.lines(fittingIn: nil))
    }

    @Test("The widest text column shrinks first; values that no longer fit end in …")
    func widestFirst() {
        #expect(Self.table.lines(fittingIn: 48) == [
            "objectID     name           chef          rating",
            "-----------  -------------  ------------  ------",
            "Recipe/p128  Hot and Sour…  Chen Meiling  3.0",
            "Recipe/p48   Miso Soup      Zoë Ångström  3.0",
        ])
    }

    @Test("Columns that reach the same width shrink together")
    func together() {
        #expect(Self.table.lines(fittingIn: 41) == [
            "objectID     name       chef       rating",
            "-----------  ---------  ---------  ------",
            "Recipe/p128  Hot and …  Chen Mei…  3.0",
            "Recipe/p48   Miso Soup  Zoë Ångs…  3.0",
        ])
    }

    @Test("A column's worth of space left over goes to the leftmost shrunk column")
    func spare() {
        #expect(Self.table.lines(fittingIn: 40) == [
            "objectID     name       chef      rating",
            "-----------  ---------  --------  ------",
            "Recipe/p128  Hot and …  Chen Me…  3.0",
            "Recipe/p48   Miso Soup  Zoë Ång…  3.0",
        ])
    }

    @Test("Width counts characters, not bytes: accented names line up")
    func characters() {
        let lines = Self.table.lines(fittingIn: 41)
        #expect(lines.map(\.count) == [41, 41, 38, 38])
        #expect(lines[3].utf8.count > lines[3].count)
    }

    @Test("Columns stop at their minimum: the header's width, and at least 6")
    func minimums() {
        #expect(TextTable.fit([11, 17, 12, 6], minimums: [11, 6, 6, 6], into: 35) == [11, 6, 6, 6])
        #expect(TextTable.fit([11, 17, 12, 6], minimums: [11, 6, 6, 6], into: 34) == nil)
        #expect(TextTable.fit([5, 30, 30], minimums: [5, 12, 6], into: 33) == [5, 12, 12])
    }

    @Test("When even the minimums do not fit, each row prints as a record as wide as its longest line")
    func records() {
        #expect(Self.table.lines(fittingIn: 30) == [
            "-[ RECORD 1 ]---------------",
            "objectID | Recipe/p128",
            "name     | Hot and Sour Soup",
            "chef     | Chen Meiling",
            "rating   | 3.0",
            "-[ RECORD 2 ]---------------",
            "objectID | Recipe/p48",
            "name     | Miso Soup",
            "chef     | Zoë Ångström",
            "rating   | 3.0",
        ])
    }

    @Test("Record values are cut to the width beside the keys, and not capped at 32")
    func recordValues() {
        let long = String(repeating: "abcdefghij", count: 5)
        let table = TextTable(header: ["objectID", "instructions"], rows: [["Recipe/p1", long]], isCuttable: [false, true])
        #expect(table.lines(fittingIn: 20) == [
            "-[ RECORD 1 ]-------",
            "objectID     | Reci…",
            "instructions | abcd…",
        ])
        #expect(table.recordLines(width: 60) == [
            "-[ RECORD 1 ]-----------------------------------------------",
            "objectID     | Recipe/p1",
            "instructions | abcdefghijabcdefghijabcdefghijabcdefghijabcd…",
        ])
    }

    @Test("Cells are capped at 32 characters unless the cap is off; line breaks show as spaces")
    func cap() {
        let text = "Line one\nline two is long enough to be cut somewhere"
        let capped = TextTable(header: ["text"], rows: [[text]], isCuttable: [true])
        #expect(capped.lines(fittingIn: nil)[2] == "Line one line two is long enoug…")
        let uncapped = TextTable(header: ["text"], rows: [[text]], isCuttable: [true], maximumCellWidth: nil)
        #expect(uncapped.lines(fittingIn: nil)[2] == "Line one line two is long enough to be cut somewhere")
    }

    @Test("Cutting keeps exactly the width, ellipsis included")
    func cut() {
        #expect(TextTable.cut("Crème brûlée", to: 6) == "Crème…")
        #expect(TextTable.cut("Crème", to: 6) == "Crème")
        #expect(TextTable.cut("Crème", to: 1) == "…")
    }
}

/// `.width`'s argument and the terminal's width fallbacks.
@Suite("TableWidth")
struct TableWidthSettingTests {
    @Test("auto, off and N parse; bad values name the problem")
    func parsing() throws {
        #expect(try TableWidth(parsing: "auto") == .auto)
        #expect(try TableWidth(parsing: "OFF") == .off)
        #expect(try TableWidth(parsing: "60") == .columns(60))
        #expect(throws: CommandError(".width takes auto, off or a number of columns, found 'wide'")) {
            try TableWidth(parsing: "wide")
        }
        #expect(throws: CommandError(".width needs at least 20 columns, found 5")) { try TableWidth(parsing: "5") }
    }

    @Test("auto fits only a terminal; N fits always; off never")
    func fittingWidth() {
        #expect(TableWidth.auto.fittingWidth(terminalColumns: 150) == 150)
        #expect(TableWidth.auto.fittingWidth(terminalColumns: nil) == nil)
        #expect(TableWidth.columns(60).fittingWidth(terminalColumns: nil) == 60)
        #expect(TableWidth.off.fittingWidth(terminalColumns: 150) == nil)
    }

    @Test(".width is completed with Tab and has help")
    func listed() throws {
        #expect(ShellHelp.dotCommands.contains(".width"))
        #expect(ShellHelp.overview.contains { $0.contains(".width [auto|N|off]") })
        let help = try #require(ShellHelp.detail(for: ".width"))
        #expect(help.first == ".width [auto|N|off]")
    }

    @Test("The overview spells a dot-command's arguments as its own help does", arguments: [".width", ".schema", ".open"])
    func overviewAgreesWithDetail(command: String) throws {
        let usage = try #require(ShellHelp.detail(for: command)?.first)
        #expect(ShellHelp.overview.contains { $0.contains("  \(usage)  ") || $0.hasSuffix("  \(usage)") }, "\(usage)")
    }

    @Test("Without a size from the terminal, $COLUMNS is used, then 80")
    func fallback() {
        #expect(TerminalSize.columns(fromEnvironment: "132") == 132)
        #expect(TerminalSize.columns(fromEnvironment: "wide") == 80)
        #expect(TerminalSize.columns(fromEnvironment: "0") == 80)
        #expect(TerminalSize.columns(fromEnvironment: nil) == 80)
    }
}
