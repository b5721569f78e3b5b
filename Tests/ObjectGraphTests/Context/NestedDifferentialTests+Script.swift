import Foundation
@testable import ObjectGraph

/// The graph the differential test edits: two worlds seeded alike, and the random edits and
/// requests both receive.
extension NestedDifferentialTests {
    // MARK: - The two worlds

    /// One store seeded with a graph, and the IDs of its objects by entity and unique name, so
    /// that an edit names the same object in every context of the world.
    @MainActor
    final class World {
        let coordinator: PersistentStoreCoordinator
        var ids: [String: ObjectID] = [:]

        init(seeding edits: [GraphEdit]) throws {
            coordinator = try TestModel.coordinator()
            let context = MainContext(coordinator: coordinator)
            for edit in edits { try apply(edit, in: context) }
            try context.save()
            ids = [:]
            for entity in ["Chef", "Recipe", "Tag", "Line", "Media"] {
                for object in try context.fetch(FetchRequest(entityName: entity)) {
                    ids[Self.key(entity, NestedDifferentialTests.identity(object))] = object.objectID
                }
            }
        }

        static func key(_ entity: String, _ name: String) -> String { "\(entity) \(name)" }

        func object(_ entity: String, _ name: String, in context: MainContext) -> ManagedObject {
            guard let id = ids[Self.key(entity, name)] else { preconditionFailure("the script names an unknown \(entity) \(name)") }
            return context.object(with: id)
        }

        func inserted(_ entity: String, _ name: String, in context: MainContext) throws -> ManagedObject {
            let object = try context.insert(entity)
            object[NestedDifferentialTests.identityKey[entity]!] = name
            ids[Self.key(entity == "Photo" || entity == "Video" ? "Media" : entity, name)] = object.objectID
            return object
        }

        func renamed(_ entity: String, _ name: String, to new: String) {
            ids[Self.key(entity, new)] = ids.removeValue(forKey: Self.key(entity, name))
        }

        /// Makes `edit` in `context`, unsaved.
        func apply(_ edit: GraphEdit, in context: MainContext) throws {
            func recipe(_ name: String) -> ManagedObject { object("Recipe", name, in: context) }
            switch edit {
            case .insertRecipe(let name, let chef, let tags, let values):
                let recipe = try inserted("Recipe", name, in: context)
                for value in values { set(value, on: recipe) }
                recipe["chef"] = chef.map { object("Chef", $0, in: context) }
                for tag in tags { try recipe.add(object("Tag", tag, in: context), toKey: "tags") }
            case .setRecipe(let name, let value): set(value, on: recipe(name))
            case .renameRecipe(let name, let new):
                recipe(name)["name"] = new
                renamed("Recipe", name, to: new)
            case .setChef(let name, let chef): recipe(name)["chef"] = chef.map { object("Chef", $0, in: context) }
            case .addTag(let name, let tag): try recipe(name).add(object("Tag", tag, in: context), toKey: "tags")
            case .removeTag(let name, let tag):
                // From the tag's side, half the time: the inverse must follow either way.
                if name.count % 2 == 0 {
                    try recipe(name).remove(object("Tag", tag, in: context), fromKey: "tags")
                } else {
                    try object("Tag", tag, in: context).remove(recipe(name), fromKey: "recipes")
                }
            case .deleteRecipe(let name): context.delete(recipe(name))
            case .insertChef(let name): _ = try inserted("Chef", name, in: context)
            case .renameChef(let name, let new):
                object("Chef", name, in: context)["name"] = new
                renamed("Chef", name, to: new)
            case .deleteChef(let name): context.delete(object("Chef", name, in: context))
            case .insertTag(let label): _ = try inserted("Tag", label, in: context)
            case .renameTag(let label, let new):
                object("Tag", label, in: context)["label"] = new
                renamed("Tag", label, to: new)
            case .deleteTag(let label): context.delete(object("Tag", label, in: context))
            case .insertLine(let text, let position, let owner):
                let line = try inserted("Line", text, in: context)
                line["position"] = Int32(position)
                line["recipe"] = recipe(owner)
            case .moveLine(let text, let owner): object("Line", text, in: context)["recipe"] = recipe(owner)
            case .setPosition(let text, let position): object("Line", text, in: context)["position"] = Int32(position)
            case .deleteLine(let text): context.delete(object("Line", text, in: context))
            case .insertMedia(let caption, let seconds, let owner):
                let media = try inserted(seconds == nil ? "Photo" : "Video", caption, in: context)
                if let seconds { media["seconds"] = seconds }
                media["recipe"] = owner.map(recipe)
            case .setMediaRecipe(let caption, let owner): object("Media", caption, in: context)["recipe"] = owner.map(recipe)
            case .recaption(let caption, let new):
                object("Media", caption, in: context)["caption"] = new
                renamed("Media", caption, to: new)
            case .deleteMedia(let caption): context.delete(object("Media", caption, in: context))
            }
        }

        func set(_ value: RecipeValue, on recipe: ManagedObject) {
            switch value {
            case .rating(let rating): recipe["rating"] = rating
            case .servings(let servings): recipe["servings"] = Int16(servings)
            case .vegetarian(let vegetarian): recipe["vegetarian"] = vegetarian
            case .published(let date): recipe["published"] = date
            }
        }
    }

    /// An edit of the test model's graph, naming objects by their unique names.
    enum GraphEdit {
        case insertRecipe(String, chef: String?, tags: [String], values: [RecipeValue])
        case setRecipe(String, RecipeValue)
        case renameRecipe(String, to: String)
        case setChef(recipe: String, chef: String?)
        case addTag(recipe: String, tag: String)
        case removeTag(recipe: String, tag: String)
        case deleteRecipe(String)
        case insertChef(String)
        case renameChef(String, to: String)
        case deleteChef(String)
        case insertTag(String)
        case renameTag(String, to: String)
        case deleteTag(String)
        case insertLine(String, position: Int, recipe: String)
        case moveLine(String, to: String)
        case setPosition(String, Int)
        case deleteLine(String)
        /// A video when it has seconds, otherwise a photo.
        case insertMedia(String, seconds: Double?, recipe: String?)
        case setMediaRecipe(String, recipe: String?)
        case recaption(String, to: String)
        case deleteMedia(String)
    }

    enum RecipeValue {
        case rating(Double?), servings(Int), vegetarian(Bool), published(Date?)
    }

    /// A fetch to compare, and the batch size of a lazy fetch of it (none when 0).
    struct Probe {
        var request: FetchRequest
        var lazyBatch: Int
    }

    // MARK: - The script

    /// Random edits and requests. It keeps a sketch of the graph by name, so that every edit
    /// names live objects and stays valid to save (a chef is deleted only without recipes:
    /// `deny`), and every name is new (names are unique, and identify objects across worlds).
    struct EditScript {
        var rng: SeededGenerator
        var serial = 0
        var recipes: [String: (chef: String?, tags: Set<String>)] = [:]
        var chefs: Set<String> = []
        var tags: Set<String> = []
        var lines: [String: String] = [:]  // text → recipe
        var media: [String: String?] = [:]  // caption → recipe
        static let chefNames = ["Ana", "Bo", "Zoë", "Émile", "Kai", "Lu"]
        static let tagLabels = ["quick", "cheap", "Spicy", "vegan", "old"]

        init(rng: SeededGenerator) { self.rng = rng }

        mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &rng)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
        /// A number never used before: names and line positions are unique.
        mutating func freshNumber() -> Int {
            serial += 1
            return serial
        }
        mutating func fresh(_ prefix: String) -> String { "\(prefix)\(freshNumber())" }
        mutating func some(_ items: [String], most: Int) -> [String] {
            var chosen: [String] = []
            for _ in 0..<Int.random(in: 1...most, using: &rng) {
                let item = pick(items)
                if !chosen.contains(item) { chosen.append(item) }
            }
            return chosen
        }

        mutating func recipeValues() -> [RecipeValue] {
            [.rating(chance(25) ? nil : Double(Int.random(in: 0...10, using: &rng)) / 2),
             .servings(pick([1, 2, 4, 4, 6, 8])),
             .vegetarian(chance(40)),
             .published(chance(30) ? nil : Date(timeIntervalSince1970: Double(Int.random(in: 0..<5, using: &rng)) * 86_400 * 365))]
        }

        /// The seeded graph: six chefs, five tags, 50 recipes with lines, some with media.
        mutating func seedGraph() -> [GraphEdit] {
            var edits = Self.chefNames.map(GraphEdit.insertChef) + Self.tagLabels.map(GraphEdit.insertTag)
            for edit in edits { record(edit) }
            for index in 0..<50 {
                let chef: String? = chance(15) ? nil : pick(Self.chefNames)
                let tags = Self.tagLabels.filter { _ in chance(30) }
                edits.append(record(.insertRecipe("R\(index)", chef: chef, tags: tags, values: recipeValues())))
                for _ in 0..<Int.random(in: 0...3, using: &rng) {
                    edits.append(record(.insertLine(fresh("L"), position: serial, recipe: "R\(index)")))
                }
                if chance(30) {
                    edits.append(record(.insertMedia(fresh("M"), seconds: chance(50) ? Double(Int.random(in: 0..<5, using: &rng)) : nil, recipe: "R\(index)")))
                }
            }
            edits.append(record(.insertMedia(fresh("M"), seconds: nil, recipe: nil)))
            return edits
        }

        /// Updates its sketch of the graph for `edit`, and returns it.
        @discardableResult
        mutating func record(_ edit: GraphEdit) -> GraphEdit {
            switch edit {
            case .insertRecipe(let name, let chef, let labels, _): recipes[name] = (chef, Set(labels))
            case .setRecipe: break
            case .renameRecipe(let name, let new):
                recipes[new] = recipes.removeValue(forKey: name)
                for (text, owner) in lines where owner == name { lines[text] = new }
                for (caption, owner) in media where owner == name { media[caption] = new }
            case .setChef(let name, let chef): recipes[name]?.chef = chef
            case .addTag(let name, let tag): recipes[name]?.tags.insert(tag)
            case .removeTag(let name, let tag): recipes[name]?.tags.remove(tag)
            case .deleteRecipe(let name):
                recipes[name] = nil
                lines = lines.filter { $0.value != name }  // cascade
                media = media.filter { $0.value != name }  // cascade
            case .insertChef(let name): chefs.insert(name)
            case .renameChef(let name, let new):
                chefs.remove(name)
                chefs.insert(new)
                for (recipe, value) in recipes where value.chef == name { recipes[recipe]?.chef = new }
            case .deleteChef(let name): chefs.remove(name)
            case .insertTag(let label): tags.insert(label)
            case .renameTag(let label, let new):
                tags.remove(label)
                tags.insert(new)
                for (recipe, value) in recipes where value.tags.contains(label) {
                    recipes[recipe]?.tags.remove(label)
                    recipes[recipe]?.tags.insert(new)
                }
            case .deleteTag(let label):
                tags.remove(label)
                for recipe in recipes.keys { recipes[recipe]?.tags.remove(label) }
            case .insertLine(let text, _, let owner), .moveLine(let text, let owner): lines[text] = owner
            case .setPosition: break
            case .deleteLine(let text): lines[text] = nil
            case .insertMedia(let caption, _, let owner), .setMediaRecipe(let caption, let owner): media[caption] = owner
            case .recaption(let caption, let new): media[new] = media.removeValue(forKey: caption)
            case .deleteMedia(let caption): media[caption] = nil
            }
            return edit
        }

        /// A random edit of live objects, recorded.
        mutating func nextEdit() -> GraphEdit {
            let recipeNames = recipes.keys.sorted(), chefNames = chefs.sorted(), labels = tags.sorted()
            let lineTexts = lines.keys.sorted(), captions = media.keys.sorted()
            let kind = pick([0, 0, 1, 1, 1, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 14, 15, 16, 17, 18, 19, 20])
            let edit: GraphEdit
            switch kind {
            case 1: edit = .setRecipe(pick(recipeNames), pick(recipeValues()))
            case 2: edit = .renameRecipe(pick(recipeNames), to: fresh("X"))
            case 3: edit = .setChef(recipe: pick(recipeNames), chef: chance(20) || chefNames.isEmpty ? nil : pick(chefNames))
            case 4, 5:
                let name = pick(recipeNames), held = recipes[name]!.tags
                let candidates = kind == 4 ? labels.filter { !held.contains($0) } : held.sorted()
                guard !candidates.isEmpty else { return nextEdit() }
                edit = kind == 4 ? .addTag(recipe: name, tag: pick(candidates)) : .removeTag(recipe: name, tag: pick(candidates))
            case 6: edit = .deleteRecipe(pick(recipeNames))
            case 7: edit = .insertChef(fresh("Chef"))
            case 8 where !chefNames.isEmpty: edit = .renameChef(pick(chefNames), to: fresh("Chef"))
            case 9:
                let idle = chefNames.filter { name in !recipes.values.contains { $0.chef == name } }
                edit = idle.isEmpty ? .insertChef(fresh("Chef")) : .deleteChef(pick(idle))
            case 10: edit = .insertTag(fresh("tag"))
            case 11 where !labels.isEmpty: edit = .renameTag(pick(labels), to: fresh("tag"))
            case 12 where !labels.isEmpty: edit = .deleteTag(pick(labels))
            case 13: edit = .insertLine(fresh("L"), position: serial, recipe: pick(recipeNames))
            case 14 where !lineTexts.isEmpty: edit = .moveLine(pick(lineTexts), to: pick(recipeNames))
            case 15 where !lineTexts.isEmpty: edit = .setPosition(pick(lineTexts), freshNumber())
            case 16 where !lineTexts.isEmpty: edit = .deleteLine(pick(lineTexts))
            case 17: edit = .insertMedia(fresh("M"), seconds: chance(50) ? Double(Int.random(in: 0..<5, using: &rng)) : nil,
                                         recipe: chance(80) ? pick(recipeNames) : nil)
            case 18 where !captions.isEmpty: edit = .setMediaRecipe(pick(captions), recipe: chance(80) ? pick(recipeNames) : nil)
            case 19 where !captions.isEmpty: edit = .recaption(pick(captions), to: fresh("M"))
            case 20 where !captions.isEmpty: edit = .deleteMedia(pick(captions))
            default:
                edit = .insertRecipe(fresh("N"), chef: chance(30) || chefNames.isEmpty ? nil : pick(chefNames),
                                     tags: labels.filter { _ in chance(25) }, values: recipeValues())
            }
            return record(edit)
        }

        // MARK: Requests

        static let sortable = [
            "Recipe": ["name", "rating", "servings", "published", "vegetarian", "chef.name"],
            "Chef": ["name"], "Tag": ["label"], "Line": ["text", "position", "recipe.name", "recipe.rating"],
            "Media": ["caption", "recipe.name"], "Photo": ["caption", "recipe.rating"], "Video": ["caption", "seconds"],
        ]
        static let prefetchable = [
            "Recipe": ["chef", "tags", "lines", "media", "chef.recipes"], "Chef": ["recipes", "recipes.tags"],
            "Tag": ["recipes"], "Line": ["recipe", "recipe.chef"], "Media": ["recipe"], "Photo": ["recipe"], "Video": ["recipe"],
        ]

        mutating func entityName() -> String {
            pick(["Recipe", "Recipe", "Recipe", "Recipe", "Chef", "Tag", "Line", "Line", "Media", "Photo", "Video"])
        }

        /// A random fetch with a random predicate, order, window and fetch options.
        mutating func nextProbe() throws -> Probe {
            let entity = entityName()
            var request = FetchRequest(entityName: entity, predicate: chance(85) ? try predicate(for: entity) : nil)
            if chance(70) { request.sortKeys = some(Self.sortable[entity]!, most: 2).map { SortKey($0, ascending: chance(50)) } }
            if chance(35) { request.fetchLimit = Int.random(in: 1...15, using: &rng) }
            if chance(25) { request.fetchOffset = Int.random(in: 0...10, using: &rng) }
            let identity = NestedDifferentialTests.identityKey[entity]!
            if request.fetchLimit > 0 || request.fetchOffset > 0, !request.sortKeys.contains(where: { $0.keyPath == identity }) {
                request.sortKeys.append(SortKey(identity, ascending: chance(50)))  // a window of ties would be arbitrary
            }
            if chance(20) { request.includesPropertyValues = false }
            if chance(20) { request.returnsObjectsAsFaults = false }
            if chance(20) { request.fetchBatchSize = Int.random(in: 1...8, using: &rng) }
            if chance(25) { request.relationshipKeyPathsForPrefetching = some(Self.prefetchable[entity]!, most: 2) }
            if entity == "Media" || chance(10) { request.includesSubentities = chance(80) }
            return Probe(request: request, lazyBatch: chance(25) ? Int.random(in: 1...10, using: &rng) : 0)
        }

        /// A dictionary fetch: chosen keys (distinct or not), or groups with aggregates.
        mutating func nextDictionaryRequest() throws -> FetchRequest {
            let entity = pick(["Recipe", "Recipe", "Line", "Media"])
            var request = FetchRequest(entityName: entity, predicate: chance(80) ? try predicate(for: entity) : nil)
            let keys = ["Recipe": ["name", "rating", "servings", "vegetarian", "published", "chef.name"],
                        "Line": ["text", "position", "recipe.name"], "Media": ["caption", "recipe.name", "recipe.rating"]][entity]!
            if chance(50) {
                request.propertiesToFetch = some(keys, most: 3)
                request.returnsDistinctResults = chance(50)
                if chance(50) {
                    // Sorted by the unique name, compared in order, windowed or not.
                    let identity = NestedDifferentialTests.identityKey[entity]!
                    if !request.propertiesToFetch.contains(identity) { request.propertiesToFetch.insert(identity, at: 0) }
                    request.sortKeys = [SortKey(identity, ascending: chance(50))]
                    if chance(50) { request.fetchLimit = Int.random(in: 1...20, using: &rng) }
                    if chance(30) { request.fetchOffset = Int.random(in: 0...10, using: &rng) }
                }
                return request
            }
            let groups = ["Recipe": ["servings", "chef.name", "vegetarian", "rating"], "Line": ["recipe.name", "recipe.chef.name"],
                          "Media": ["recipe.name"]][entity]!
            let aggregates = ["Recipe": ["@count", "@count.rating", "@sum.servings", "@avg.rating", "@min.name", "@max.published"],
                              "Line": ["@count", "@max.position", "@min.text"], "Media": ["@count", "@max.caption"]][entity]!
            request.propertiesToGroupBy = chance(20) ? [] : some(groups, most: 2)
            request.propertiesToFetch = request.propertiesToGroupBy + some(aggregates, most: 3)
            return request
        }

        /// A random predicate for `entity`: an atom, or a conjunction, disjunction or negation.
        mutating func predicate(for entity: String, depth: Int = 0) throws -> FetchPredicate {
            if depth < 2, chance(40) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: return try predicate(for: entity, depth: depth + 1) && predicate(for: entity, depth: depth + 1)
                case 1: return try predicate(for: entity, depth: depth + 1) || predicate(for: entity, depth: depth + 1)
                default: return !(try predicate(for: entity, depth: depth + 1))
                }
            }
            let (format, arguments) = atom(for: entity)
            return try FetchPredicate(format: format, argumentArray: arguments)
        }

        mutating func atom(for entity: String) -> (String, [any Sendable]) {
            let chef = pick(chefs.sorted() + Self.chefNames), tag = pick(tags.sorted() + Self.tagLabels)
            let rating = Double(Int.random(in: 0...10, using: &rng)) / 2, count = Int.random(in: 0...3, using: &rng)
            let digit = "\(Int.random(in: 0...9, using: &rng))", position = Int.random(in: 0...max(1, serial), using: &rng)
            let atoms: [(String, [any Sendable])]
            switch entity {
            case "Recipe":
                atoms = [
                    ("rating > %@", [rating]), ("rating == nil", []), ("rating != nil AND servings >= %@", [pick([2, 4, 6])]),
                    ("servings IN %@", [[1, 6]]), ("vegetarian == YES", []),
                    ("published > %@", [Date(timeIntervalSince1970: Double(count) * 86_400 * 365)]), ("published == nil", []),
                    ("name BEGINSWITH %@", [pick(["N", "R1", "X", "R"])]), ("name CONTAINS %@", [digit]),
                    ("chef == nil", []), ("chef.name == %@", [chef]), ("chef.name BEGINSWITH[cd] %@", [pick(["e", "c", "a", "z"])]),
                    ("ANY tags.label == %@", [tag]), ("NONE tags.label == %@", [tag]), ("tags.@count >= %@", [count]),
                    ("lines.@count > %@", [count]), ("ANY lines.position > %@", [position]), ("ALL lines.position < %@", [position]),
                    ("SUBQUERY(lines, $l, $l.text ENDSWITH %@).@count > 0", [digit]), ("lines[FIRST].text ENDSWITH %@", [digit]),
                    ("media.@count > 0", []), ("ANY media.caption ENDSWITH %@", [digit]), ("chef.recipes.@count > %@", [count * 3]),
                    ("ANY chef.recipes.tags.label == %@", [tag]),
                ]
            case "Chef":
                atoms = [
                    ("name BEGINSWITH %@", [pick(["C", "A", "Z"])]), ("recipes.@count > %@", [count * 3]),
                    ("ANY recipes.rating > %@", [rating]), ("ALL recipes.vegetarian == YES", []),
                    ("ANY recipes.tags.label == %@", [tag]), ("SUBQUERY(recipes, $r, $r.servings >= 4).@count > %@", [count]),
                ]
            case "Tag":
                atoms = [
                    ("recipes.@count >= %@", [count * 4]), ("ANY recipes.chef.name == %@", [chef]),
                    ("label CONTAINS[c] %@", [pick(["a", "e", "t", "s"])]), ("ANY recipes.rating == nil", []),
                ]
            case "Line":
                atoms = [
                    ("position > %@", [position]), ("recipe.rating > %@", [rating]), ("recipe.chef.name == %@", [chef]),
                    ("text ENDSWITH %@", [digit]), ("recipe.vegetarian == YES", []), ("ANY recipe.tags.label == %@", [tag]),
                    ("recipe.name BEGINSWITH %@", [pick(["N", "R", "X"])]),
                ]
            default:
                atoms = [
                    ("caption ENDSWITH %@", [digit]), ("recipe == nil", []), ("recipe.rating > %@", [rating]),
                    ("recipe.chef.name == %@", [chef]),
                ] + (entity == "Video" ? [("seconds > %@", [Double(count)])] : [])
            }
            return pick(atoms)
        }
    }
}
