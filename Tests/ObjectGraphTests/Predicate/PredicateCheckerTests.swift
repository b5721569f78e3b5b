@testable import ObjectGraph
import Foundation
import Testing

@Suite("Predicate checking against the model")
struct PredicateCheckerTests {
    let recipe = RecipeDataset.model.entity(named: "Recipe")!

    func rendered(_ text: String, _ arguments: any Sendable...) -> String {
        do {
            _ = try FetchPredicate(format: text, argumentArray: arguments).checked(for: recipe)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test("An unknown key suggests the nearest one")
    func unknownKey() {
        #expect(rendered(#"nmae == "Soup""#) == """
            error: unknown key 'nmae' on entity 'Recipe'
             --> predicate:1:1
              | nmae == "Soup"
              | ^^^^ did you mean 'name'?
            """)
        #expect(rendered(#"rating > 3 AND chef.nmae == "Ana""#) == """
            error: unknown key 'nmae' on entity 'Chef'
             --> predicate:1:21
              | rating > 3 AND chef.nmae == "Ana"
              |                     ^^^^ did you mean 'name'?
            """)
    }

    @Test("Type errors name the problem and the fix", arguments: [
        (#"published == "2024-01-01""#, "cannot compare a Date with a String"),
        (#"ingredients.name == "salt""#, "'ingredients' is a to-many relationship; say which of its objects to compare"),
        ("chef > 3", "'chef' is an object of entity 'Chef', not a value"),
        (#"chef == "Ana""#, "an object can only be compared with an ObjectID or nil"),
        ("$minimum < rating", "the variable $minimum has no value"),
        ("rating ==[c] 3", "the option [c] applies to strings"),
        (#"name MATCHES "(""#, "invalid regular expression"),
        ("SUBQUERY(ingredients, $i, $i.quantity > 1) == 2", "SUBQUERY(…) is a collection of objects, not a value"),
        ("SUBQUERY(chef, $i, $i.name == nil).@count == 2", "SUBQUERY needs a to-many key path as its collection"),
        ("ANY rating > 3", "ANY needs a to-many key path"),
        ("ANY chef.recipes.tags.name == nil", "a comparison can go through only one to-many relationship"),
        ("ingredients.@sum.name > 3", "@sum needs numbers"),
        ("ingredients.@cont == 3", "unknown aggregate '@cont'"),
        ("rating.@count == 3", "'rating' is an attribute of 'Recipe' and has no key '@count'"),
        ("name + 1 > 3", "arithmetic needs numbers, but this is a String"),
        (#"name BEGINSWITH 3"#, "cannot compare a String with a number"),
        ("rating BETWEEN {1}", "BETWEEN needs two bounds"),
        ("rating == {1, 2}", "'==' compares single values, not a list"),
        (#"code == "not-a-uuid""#, "\"not-a-uuid\" is not a valid UUID"),
        ("vegetarian == YES AND rating IN {1, \"x\"}", "cannot compare a number with a String"),
    ])
    func typeErrors(format: String, message: String) {
        let text = rendered(format)
        #expect(text.hasPrefix("error: " + message), "\(text)")
        #expect(text.contains("^"), "no caret: \(text)")
    }

    @Test("A composed predicate's check error points into its canonical text")
    func composedErrors() throws {
        let predicate = try FetchPredicate("rating > 3") && FetchPredicate("nmae == 'x'")
        do {
            _ = try predicate.checked(for: recipe)
            Issue.record("expected an error")
        } catch let error as PredicateSyntaxError {
            #expect(error.description.contains(#"  | (rating > 3 AND nmae == "x")"#))
            #expect(error.location?.column == 17)
        }
    }

    @Test("Substituted variables are checked like literals")
    func substitutedValues() throws {
        let template = try FetchPredicate("published < $date AND chef.name == $chef")
        let filled = try template.substituting(["date": Date(), "chef": "Ana"])
        #expect(throws: Never.self) { try filled.checked(for: self.recipe) }
        let wrong = try template.substituting(["date": "yesterday", "chef": "Ana"])
        #expect(throws: PredicateSyntaxError.self) { try wrong.checked(for: self.recipe) }
    }
}
