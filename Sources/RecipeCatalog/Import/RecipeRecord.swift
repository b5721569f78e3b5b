public import Foundation

/// One recipe as parsed from a line of a JSON Lines import file.
///
/// Every attribute but ``sourceID`` and ``name`` is optional: a field that is
/// missing (or `null`) in the file is `nil` here. The record knows nothing of the
/// store; the importer turns it into objects.
///
/// ```swift
/// let reader = try RecipeFileReader(url: url)
/// while let batch = try reader.nextBatch() {
///     for record in batch.records { print(record.sourceID, record.name) }
/// }
/// ```
public struct RecipeRecord: Sendable, Equatable {
    /// The file's `id` field, e.g. `r-000001`; becomes the recipe's `sourceID`.
    public var sourceID: String
    /// The recipe's display name.
    public var name: String
    /// The chef's name, matched exactly when uniquing chefs.
    public var chef: String?
    /// The cuisine's name, matched exactly when uniquing cuisines.
    public var cuisine: String?
    /// The course, e.g. `main` or `dessert`.
    public var course: String?
    /// Preparation time in minutes.
    public var prepMinutes: Int?
    /// Cooking time in minutes.
    public var cookMinutes: Int?
    /// Number of servings.
    public var servings: Int?
    /// Rating from 1.0 to 5.0.
    public var rating: Double?
    /// Publication date (midnight UTC for a plain `YYYY-MM-DD`).
    public var published: Date?
    /// The ingredient lines, in file order; a line's position is its `displayOrder`.
    public var ingredients: [IngredientLine]
    /// The method, as free text.
    public var instructions: String?
    /// The decoded image bytes of the optional `photo` field.
    public var photo: Data?
    /// The 1-based line number of the record in its file.
    public var lineNumber: Int

    /// Creates a record; every optional attribute defaults to `nil`.
    public init(
        sourceID: String, name: String, chef: String? = nil, cuisine: String? = nil,
        course: String? = nil, prepMinutes: Int? = nil, cookMinutes: Int? = nil,
        servings: Int? = nil, rating: Double? = nil, published: Date? = nil,
        ingredients: [IngredientLine] = [], instructions: String? = nil,
        photo: Data? = nil, lineNumber: Int
    ) {
        self.sourceID = sourceID
        self.name = name
        self.chef = chef
        self.cuisine = cuisine
        self.course = course
        self.prepMinutes = prepMinutes
        self.cookMinutes = cookMinutes
        self.servings = servings
        self.rating = rating
        self.published = published
        self.ingredients = ingredients
        self.instructions = instructions
        self.photo = photo
        self.lineNumber = lineNumber
    }
}
