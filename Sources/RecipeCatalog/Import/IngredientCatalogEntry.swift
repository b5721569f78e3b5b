/// One food of the ingredient catalogue (`SampleData/ingredients.tsv`).
///
/// Nutrients are per 100 g of the food as described by USDA SR; `nil` when
/// the database has no value.
public struct IngredientCatalogEntry: Sendable, Equatable, Hashable {
    /// The unique name recipes use: a short common name ("butter") or the USDA description.
    public var name: String
    /// The USDA NDB number, e.g. `01001`.
    public var usdaNumber: String
    /// The USDA long description, e.g. `Butter, salted`.
    public var usdaDescription: String
    /// The USDA food group, e.g. `Dairy and Egg Products`.
    public var foodGroup: String
    /// Energy in kilocalories per 100 g.
    public var kcal: Double?
    /// Protein in grams per 100 g.
    public var proteinG: Double?
    /// Total fat in grams per 100 g.
    public var fatG: Double?
    /// Carbohydrate in grams per 100 g.
    public var carbohydrateG: Double?
    /// Dietary fibre in grams per 100 g.
    public var fiberG: Double?
    /// Total sugars in grams per 100 g.
    public var sugarG: Double?
    /// Sodium in milligrams per 100 g.
    public var sodiumMg: Double?

    /// Creates an entry; nutrients default to unknown.
    public init(
        name: String, usdaNumber: String, usdaDescription: String, foodGroup: String,
        kcal: Double? = nil, proteinG: Double? = nil, fatG: Double? = nil,
        carbohydrateG: Double? = nil, fiberG: Double? = nil, sugarG: Double? = nil,
        sodiumMg: Double? = nil
    ) {
        self.name = name
        self.usdaNumber = usdaNumber
        self.usdaDescription = usdaDescription
        self.foodGroup = foodGroup
        self.kcal = kcal
        self.proteinG = proteinG
        self.fatG = fatG
        self.carbohydrateG = carbohydrateG
        self.fiberG = fiberG
        self.sugarG = sugarG
        self.sodiumMg = sodiumMg
    }
}
