/// How query results print (`.mode`).
enum OutputMode: String, CaseIterable, Sendable {
    /// Aligned columns with a header; long text cut, fitted to the terminal (see ``TableWidth``).
    case table
    /// One JSON object per line.
    case json
    /// Comma-separated values with a header line.
    case csv
    /// One `key = value` line per property, a blank line between objects.
    case line
}
