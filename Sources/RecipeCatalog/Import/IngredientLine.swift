/// One entry of a recipe's `ingredients` array in an import file.
///
/// ```swift
/// let line = IngredientLine(name: "butter", quantity: 50, unit: "g")
/// ```
///
/// A missing `quantity` means "to taste"; a missing `unit` means a count ("2 eggs").
public struct IngredientLine: Sendable, Equatable, Hashable {
    /// The ingredient's catalogue name, matched exactly when uniquing ingredients.
    public var name: String
    /// The amount, or `nil` when the line gives none (for example salt to taste).
    public var quantity: Double?
    /// The unit of `quantity` (`g`, `tbsp`, …), or `nil` for a plain count.
    public var unit: String?

    /// Creates an ingredient line.
    public init(name: String, quantity: Double? = nil, unit: String? = nil) {
        self.name = name
        self.quantity = quantity
        self.unit = unit
    }
}
