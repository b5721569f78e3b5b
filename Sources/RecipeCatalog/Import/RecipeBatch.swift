/// The records and line errors read from one stretch of an import file.
public struct RecipeBatch: Sendable, Equatable {
    /// The lines that parsed, in file order.
    public var records: [RecipeRecord]
    /// The lines that did not, in file order.
    public var errors: [ImportLineError]
    /// The number of the last line this batch covers.
    public var lastLineNumber: Int

    /// Creates a batch.
    public init(records: [RecipeRecord], errors: [ImportLineError], lastLineNumber: Int) {
        self.records = records
        self.errors = errors
        self.lastLineNumber = lastLineNumber
    }
}
