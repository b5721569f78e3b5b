/// How wide tables print (`.width`): fitted to the terminal, to a set width, or never cut.
///
/// ```
/// .width auto   fit tables to the terminal when standard output is one (the default)
/// .width 60     fit tables to 60 columns, terminal or not (scripts, tests)
/// .width off    never cut a value
/// ```
enum TableWidth: Equatable, Sendable {
    /// Fit to the terminal when standard output is a terminal; otherwise do not fit.
    case auto
    /// Fit to this many columns, whatever standard output is.
    case columns(Int)
    /// Never cut values, not even the long ones that tables usually shorten.
    case off

    /// The narrowest width `.width N` accepts.
    static let minimumColumns = 20

    /// Parses the argument of `.width`.
    ///
    /// - Throws: ``CommandError`` naming the argument when it is not `auto`, `off` or a
    ///   number of at least ``minimumColumns``.
    init(parsing text: String) throws {
        switch text.lowercased() {
        case "auto": self = .auto
        case "off": self = .off
        default:
            guard let number = Int(text) else {
                throw CommandError(".width takes auto, off or a number of columns, found '\(text)'")
            }
            guard number >= Self.minimumColumns else {
                throw CommandError(".width needs at least \(Self.minimumColumns) columns, found \(number)")
            }
            self = .columns(number)
        }
    }

    /// The width to fit a table to, given the terminal's width (`nil` when standard
    /// output is not a terminal); `nil` means do not fit.
    func fittingWidth(terminalColumns: Int?) -> Int? {
        switch self {
        case .auto: terminalColumns
        case .columns(let number): number
        case .off: nil
        }
    }

    /// What `.width` prints about the setting.
    func describe(terminalColumns: Int?) -> String {
        switch self {
        case .auto:
            if let terminalColumns { "auto (fits the terminal: \(terminalColumns) columns)" }
            else { "auto (standard output is not a terminal: tables are not fitted)" }
        case .columns(let number): "\(number) (tables fit \(number) columns)"
        case .off: "off (values are never cut)"
        }
    }
}
