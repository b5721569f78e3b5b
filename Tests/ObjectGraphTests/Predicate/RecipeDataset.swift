@testable import ObjectGraph
@testable import ObjectGraphSQLite
import Foundation

/// The fixed dataset of the conformance table: twelve recipes (keys A…L), four chefs, lines
/// and tags, with accented and mixed-case names, nils and empty relationships.
///
/// A recipe's lines are listed in `position` order (0, 1, 2, …), except where a recipe says
/// otherwise: Apple pie's are positioned sugar, flour, apple, and Phở's basil has no position
/// (nil orders first). A chef's recipes are ordered by `prepMinutes`, then by key
/// (insertion order): Ana I L A F, Björn B K G, ǅemal D C H.
enum RecipeDataset {
    static let model = RecipeModel.make()

    /// Recipe letters by name, to write expected results compactly.
    static let letters: [String: Character] = [
        "Crème Brûlée": "A", "Straße Salad": "B", "Σίσυφος Stew": "C", "İstanbul Kebab": "D",
        "ışık soup": "E", "CREME brulee": "F", "Ph\u{1EDF}": "G", "ǅemal's Pie": "H",
        "Apple pie": "I", "Toast": "J", "50% Off Soup": "K", "O'Brien's Hash": "L",
    ]

    static func date(_ text: String) -> Date { ISO8601Date.parse(text)! }

    /// The letters of the recipes with these keys, sorted.
    static func letters(_ keys: some Sequence<Int64>, in graph: TestGraph) -> String {
        let keys = Set(keys)
        let objects = graph.objects(of: "Recipe").filter { keys.contains($0.key) }
        return String(objects.compactMap { letters[$0.name] }.sorted())
    }

    /// The names of the objects of `entity` with these keys, sorted (with repeats).
    static func names(_ keys: some Sequence<Int64>, entity: String, in graph: TestGraph) -> [String] {
        let keys = Set(keys)
        return graph.objects(of: entity).filter { keys.contains($0.key) }.map(\.name).sorted()
    }

    static func make() -> TestGraph {
        let graph = TestGraph(model: model)
        let ana = graph.insert("Chef", ["name": "Ana"])
        let bjorn = graph.insert("Chef", ["name": "Björn"])
        let demal = graph.insert("Chef", ["name": "ǅemal Čolić"])
        graph.insert("Chef", ["name": "Zoë"])
        var tags: [String: TestObject] = [:]
        for name in ["dessert", "french", "salad", "greek", "main", "turkish", "soup", "breakfast", "Ünused"] {
            tags[name] = graph.insert("Tag", ["name": name])
        }
        typealias Line = (String, Double?, String?)
        func recipe(_ name: String, rating: Double?, prep: Int, cook: Int, published: String?, vegetarian: Bool,
                    chef: TestObject?, lines: [Line], tags tagNames: [String], extra: [String: Any?] = [:],
                    positions: [Int?]? = nil) {
            var values: [String: Any?] = ["name": name, "rating": rating, "prepMinutes": prep, "cookMinutes": cook,
                                          "published": published.map(date), "vegetarian": vegetarian]
            values.merge(extra) { $1 }
            let recipe = graph.insert("Recipe", values)
            recipe.link("chef", to: chef)
            for (index, (lineName, quantity, unit)) in lines.enumerated() {
                let position = positions.map { $0[index] } ?? index
                graph.insert("Line", ["name": lineName, "quantity": quantity, "unit": unit, "position": position])
                    .link("recipe", to: recipe)
            }
            for tag in tagNames { recipe.add("tags", tags[tag]!) }
        }
        recipe("Crème Brûlée", rating: 4.5, prep: 20, cook: 40, published: "2024-01-10", vegetarian: true, chef: ana,
               lines: [("cream", 2, "cup"), ("sugar", 0.5, "cup"), ("egg", 4, nil)], tags: ["dessert", "french"],
               extra: ["code": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                       "link": URL(string: "https://example.com/creme")!, "photo": Data([1, 2, 3])])
        recipe("Straße Salad", rating: nil, prep: 10, cook: 0, published: nil, vegetarian: true, chef: bjorn,
               lines: [("lettuce", 1, "head"), ("salt", nil, nil)], tags: ["salad"])
        recipe("Σίσυφος Stew", rating: 3, prep: 30, cook: 120, published: "2023-06-01", vegetarian: false, chef: demal,
               lines: [("beef", 1.5, "kg"), ("salt", 0.01, "kg"), ("onion", 2, nil)], tags: ["greek", "main"])
        recipe("İstanbul Kebab", rating: 5, prep: 25, cook: 15, published: "2024-03-01", vegetarian: false, chef: demal,
               lines: [("lamb", 0.5, "kg")], tags: ["turkish", "main"])
        recipe("ışık soup", rating: 2, prep: 5, cook: 30, published: nil, vegetarian: true, chef: nil,
               lines: [], tags: [])
        recipe("CREME brulee", rating: 4, prep: 20, cook: 45, published: "2022-12-24", vegetarian: true, chef: ana,
               lines: [("cream", 1, "cup")], tags: ["dessert"])
        recipe("Ph\u{1EDF}", rating: 4.8, prep: 30, cook: 180, published: "2024-02-15", vegetarian: false, chef: bjorn,
               lines: [("noodles", 200, "g"), ("beef", 0.3, "kg"), ("basil", nil, nil)], tags: ["main", "soup"],
               positions: [0, 1, nil])
        recipe("ǅemal's Pie", rating: nil, prep: 40, cook: 50, published: nil, vegetarian: false, chef: demal,
               lines: [("flour", 500, "g")], tags: [])
        recipe("Apple pie", rating: 3.5, prep: 15, cook: 60, published: "2021-09-30", vegetarian: true, chef: ana,
               lines: [("apple", 6, nil), ("flour", 300, "g"), ("sugar", 100, "g")], tags: ["dessert"],
               positions: [2, 1, 0])
        recipe("Toast", rating: 1, prep: 1, cook: 2, published: nil, vegetarian: true, chef: nil,
               lines: [("bread", 2, "slice")], tags: ["breakfast"])
        recipe("50% Off Soup", rating: 3, prep: 10, cook: 20, published: "2024-01-10", vegetarian: true, chef: bjorn,
               lines: [], tags: ["soup"])
        recipe("O'Brien's Hash", rating: nil, prep: 15, cook: 25, published: nil, vegetarian: false, chef: ana,
               lines: [("potato", 3, nil), ("egg", 2, nil)], tags: ["breakfast"])
        return graph
    }
}
