@testable import ObjectGraph
@testable import ObjectGraphSQLite
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
        ("published == 3", "cannot compare a Date with a number"),
        (#"ingredients.name == "salt""#, "'ingredients' is a to-many relationship; say which of its objects to compare"),
        ("chef > 3", "'chef' is an object of entity 'Chef', not a value"),
        (#"chef == "Ana""#, "an object can only be compared with an ObjectID or nil"),
        (#"chef == "Recipe/p1""#, "'Recipe/p1' names a Recipe, but this compares Chef objects"),
        (#"SELF IN {"Recipe/p1", "Chef/p2"}"#, "'Chef/p2' names a Chef, but this compares Recipe objects"),
        (#"SELF == "Recipe/t1.2""#, "an object can only be compared with an ObjectID or nil"),
        ("$minimum < rating", "the variable $minimum has no value"),
        ("rating ==[c] 3", "the option [c] applies to strings"),
        (#"name MATCHES "(""#, "invalid regular expression"),
        ("SUBQUERY(ingredients, $i, $i.quantity > 1) == 2", "SUBQUERY(…) is a collection of objects, not a value"),
        ("SUBQUERY(chef, $i, $i.name == nil).@count == 2", "SUBQUERY needs a to-many key path as its collection"),
        ("ANY rating > 3", "ANY needs a to-many key path"),
        ("ANY ingredients.name == tags.name", "only one key path of a comparison can go through to-many relationships"),
        ("SUBQUERY(chef.recipes.tags, $t, $t.name == nil).@count == 2",
         "a SUBQUERY's collection can go through only one to-many relationship"),
        ("tags[FIRST].name == nil", "'tags' is not ordered, so [FIRST] has no meaning"),
        ("tags[2] == nil", "'tags' is not ordered, so [2] has no meaning"),
        ("chef[FIRST] == nil", "'chef' is a to-one relationship; [FIRST] needs a to-many relationship"),
        ("name[LAST] == nil", "'name' is an attribute of 'Recipe'; [LAST] needs a to-many relationship"),
        ("ingredents[SIZE] == 2", "unknown key 'ingredents' on entity 'Recipe'"),
        ("ingredients[-1].name == nil", "an index must be a whole number of 0 or more"),
        ("ingredients[rating].name == nil", "an index must be a whole number of 0 or more"),
        ("ingredients[SIZE].name == nil", "only objects have keys; this is a value"),
        ("ANY ingredients.name[FIRST] == nil", "'name' is an attribute of 'Line'; [FIRST] needs a to-many relationship"),
        ("ingredients[FIRST] > 2", "'ingredients' is an object of entity 'Line', not a value"),
        ("FUNCTION(name, 'uppercased') == nil", "unknown function \"uppercased\""),
        ("FUNCTION(name, 'uppercase', 2) == nil", "'uppercase' takes no arguments after the receiver, but 1 was given"),
        ("FUNCTION(prepMinutes, 'modulus:by:') == 1", "'modulus:by:' takes 1 argument after the receiver, but 0 were given"),
        ("FUNCTION(prepMinutes, 'uppercase') == nil", "'uppercase' needs a String, but this is a number"),
        ("FUNCTION(name, 'abs:') == 1", "'abs:' needs a number, but this is a String"),
        ("FUNCTION(prepMinutes, 'modulus:by:', 'x') == 1", "'modulus:by:' needs a number, but this is a String"),
        ("FUNCTION(chef, 'length') == 1", "'length' needs a String, but this is an object"),
        ("FUNCTION(name, 'length') == 'x'", "cannot compare a number with a String"),
        ("ingredients.@sum.name > 3", "@sum needs numbers"),
        ("ingredients.@cont == 3", "unknown aggregate '@cont'"),
        ("rating.@count == 3", "'rating' is an attribute of 'Recipe' and has no key '@count'"),
        ("name + 1 > 3", "arithmetic needs numbers, but this is a String"),
        (#"name BEGINSWITH 3"#, "cannot compare a String with a number"),
        ("rating BETWEEN {1}", "BETWEEN needs two bounds"),
        ("rating == {1, 2}", "'==' compares single values, not a list"),
        (#"code == "not-a-uuid""#, "\"not-a-uuid\" is not a valid UUID"),
        (#"published > "2024-02-30""#, "\"2024-02-30\" is not a valid Date"),
        (#"published < "10/01/2024""#, "\"10/01/2024\" is not a valid Date"),
        ("vegetarian == YES AND rating IN {1, \"x\"}", "cannot compare a number with a String"),
    ])
    func typeErrors(format: String, message: String) {
        let text = rendered(format)
        #expect(text.hasPrefix("error: " + message), "\(text)")
        #expect(text.contains("^"), "no caret: \(text)")
    }

    @Test("A string that is no ISO 8601 date, compared with a date, says how to write one")
    func dateSpelling() {
        #expect(rendered(#"published > "yesterday""#).hasSuffix(
            #"write a date as "2024-05-01", or a date and time as "2024-05-01T18:30:00Z" (ISO 8601, UTC unless a zone is given)"#))
    }

    @Test("A key that differs only in case suggests the model's spelling")
    func keyDifferingInCase() {
        #expect(rendered(#"NAME == "Soup""#).hasSuffix("^^^^ did you mean 'name'?"))
    }

    @Test("An unknown function suggests the nearest name")
    func unknownFunction() {
        #expect(rendered("FUNCTION(name, 'lowercas') == 'x'") == """
            error: unknown function "lowercas"
             --> predicate:1:1
              | FUNCTION(name, 'lowercas') == 'x'
              | ^^^^^^^^^^^^^^^^^^^^^^^^^^ did you mean 'lowercase'?
            """)
        let error = try? FetchPredicate("FUNCTION(name, 'reverse') == 'x'").checked(for: recipe)
        #expect(error == nil)
        #expect(rendered("FUNCTION(name, 'reverse') == 'x'").contains("the functions are 'uppercase', 'lowercase', 'length'"))
    }

    @Test("Key paths may cross several to-many relationships under ANY, ALL and NONE")
    func deepToMany() throws {
        let chef = RecipeDataset.model.entity(named: "Chef")!
        for format in ["ANY recipes.ingredients.name == 'salt'", "ALL recipes.tags.name != nil",
                       "NONE recipes.ingredients.recipe.tags.name == 'x'", "'salt' IN recipes.ingredients.name",
                       "recipes.ingredients.name CONTAINS 'salt'", "ANY recipes.ingredients[FIRST].recipe.tags.name == 'x'"] {
            #expect(throws: Never.self, "\(format)") { try FetchPredicate(format).checked(for: chef) }
        }
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
