internal import Foundation

/// The word lists of ``CatalogGenerator``, pre-encoded as JSON-escaped UTF-8.
///
/// Everything here is computed once in `init`, in array order, so generating a
/// line only copies bytes.
struct GeneratorVocabulary: Sendable {
    /// Fixed JSON text between the values of a line.
    struct Fragments: Sendable {
        let openID = bytes(#"{"id": "g-"#)
        let name = bytes(#"", "name": ""#)
        let chef = bytes(#"", "chef": ""#)
        let cuisine = bytes(#"", "cuisine": ""#)
        let course = bytes(#"", "course": ""#)
        let prepMinutes = bytes(#"", "prepMinutes": "#)
        let cookMinutes = bytes(#", "cookMinutes": "#)
        let servings = bytes(#", "servings": "#)
        let rating = bytes(#", "rating": "#)
        let pointZero = bytes(".0")
        let pointFive = bytes(".5")
        let published = bytes(#", "published": ""#)
        let ingredients = bytes(#", "ingredients": ["#)
        let comma = bytes(", ")
        let ingredientName = bytes(#"{"name": ""#)
        let quantity = bytes(#", "quantity": "#)
        let unit = bytes(#", "unit": ""#)
        let instructions = bytes(#", "instructions": ""#)
        let photo = bytes(#", "photo": ""#)
        let close = bytes("}\n")
    }

    /// Days since 1970-01-01 of the earliest publication date (2010-01-01).
    static let firstDay = 14_610
    /// The number of days publication dates spread over (2010–2025).
    static let dayRange = 5_844
    /// An 8×8 PNG gradient, base64-encoded, for catalogues with photos.
    static let tinyPNGBase64 = bytes(
        "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbElEQVR42hXNQRUAUQhCUaMYhShGeVGIQhSizB+XXA7ODDtouIHB"
        + "Q4YOM8suWm5h8ZKl+0CskDiBsIioHhx76LiDw0eO3oN/4FVf+J8h0PduzBqZ8x/bxNQPwgaFy192SGgelC0q13/CJaXlA8Z7WAFX"
        + "OTbyAAAAAElFTkSuQmCC")

    let fragments = Fragments()
    /// Ingredient names as JSON string contents.
    let ingredients: [[UInt8]]
    /// Short title-case forms for recipe names ("Jalapeño Pepper", "Beef").
    let titles: [[UInt8]]
    /// Short lower-case forms for instructions ("jalapeño pepper", "beef").
    let shortNames: [[UInt8]]
    /// Chef names as JSON string contents.
    let chefs: [[UInt8]]
    /// The family name of each chef, for "à la …".
    let chefFamilyNames: [[UInt8]]
    let cuisines: [[UInt8]]
    let courses: [[UInt8]]
    let adjectives: [[UInt8]]
    let dishes: [[UInt8]]
    let sentenceOpeners: [[UInt8]]
    let sentenceMiddles: [[UInt8]]
    let sentenceEnds: [[UInt8]]
    let units: [[UInt8]]

    init(seed: UInt64, ingredientNames: [String], chefCount: Int) {
        let names = ingredientNames.isEmpty
            ? ["salt", "butter", "egg", "all-purpose flour", "milk", "onion", "garlic", "tomato"]
            : ingredientNames
        ingredients = names.map { escaped($0) }
        let short = names.map { name -> String in
            let head = name.split(separator: ",", maxSplits: 1).first.map(String.init) ?? name
            return head.lowercased().trimmingCharacters(in: .whitespaces)
        }
        shortNames = short.map { escaped($0) }
        titles = short.map { escaped(titleCased($0)) }

        var random = SplitMix64(seed: seed ^ 0x5EED_C0DE_CAFE_F00D)
        let givenStarts = ["A", "Ma", "Lé", "Jo", "Zo", "Ka", "Ni", "Ro", "Sø", "Ån", "Be", "Mi", "Lu",
                           "E", "Ha", "Yu", "Ti", "Da", "Ö", "Fre", "Ca", "Ol", "Ji", "Se", "Ré"]
        let givenEnds = ["na", "ri", "ël", "ko", "lia", "ren", "mé", "to", "sa", "nja", "ro", "ki",
                         "da", "lo", "ne", "mir", "ssa", "no"]
        let familyStarts = ["Ber", "Lind", "Mor", "Ka", "Van", "Øst", "Dü", "Mar", "Sa", "Tan", "O'Co",
                            "Fer", "Ló", "Gar", "Nak", "Pe", "Ri", "Hå", "Wei", "Bü", "Ćo", "Ngu", "Ab"]
        let familyEnds = ["gård", "ström", "ez", "elli", "mann", "ović", "aki", "ami", "son", "ier",
                          "eau", "dóttir", "berg", "ano", "ski", "oğlu", "yen", "nor", "ßler", "ez-Ruiz"]
        var chefs: [[UInt8]] = []
        var families: [[UInt8]] = []
        chefs.reserveCapacity(chefCount)
        for _ in 0..<chefCount {
            let given = givenStarts[random.next(below: givenStarts.count)]
                + givenEnds[random.next(below: givenEnds.count)]
            let family = familyStarts[random.next(below: familyStarts.count)]
                + familyEnds[random.next(below: familyEnds.count)]
            chefs.append(escaped(given + " " + family))
            families.append(escaped(family))
        }
        self.chefs = chefs
        chefFamilyNames = families

        cuisines = ["French", "Italian", "Vietnamese", "Mexican", "Danish", "German", "Japanese",
                    "Indian", "Thai", "Moroccan", "Ethiopian", "Peruvian", "Korean", "Greek",
                    "Lebanese", "Spanish", "Turkish", "Chinese", "Brazilian", "American", "Balkan",
                    "Swedish", "Polish", "Hungarian"].map { escaped($0) }
        courses = ["starter", "main", "side", "dessert", "breakfast", "snack", "drink", "soup",
                   "salad", "bread"].map { escaped($0) }
        adjectives = ["Smoky", "Crispy", "Golden", "Rustic", "Spiced", "Zesty", "Slow-Roasted",
                      "Charred", "Creamy", "Tangy", "Herbed", "Glazed", "Fiery", "Velvety", "Honeyed",
                      "Peppery", "Gratinéed", "Grandmother's", "Sunday", "Weeknight", "Summer",
                      "Winter", "Straße-Style", "Nordic", "Little", "Brûléed", "Flambéed", "Sautéed"]
            .map { escaped($0) }
        dishes = ["Gratin", "Stew", "Tart", "Salad", "Soup", "Curry", "Risotto", "Pie", "Skewers",
                  "Bowl", "Braise", "Fritters", "Pancakes", "Dumplings", "Tagine", "Crumble",
                  "Soufflé", "Velouté", "Ragù", "Pilaf", "Tacos", "Smørrebrød", "Flatbread",
                  "Terrine", "Crêpes", "Noodles", "Galette", "Clafoutis", "Purée", "Chowder",
                  "Bake", "Hash", "Frittata", "Porridge", "Phở", "Köfte", "Spätzle"].map { escaped($0) }
        sentenceOpeners = ["Prepare the ", "Wash and trim the ", "Chop the ", "Warm the ",
                           "Season the ", "Toast the "].map { escaped($0) }
        sentenceMiddles = [". Cook it gently with the ", ". Combine it with the ",
                           ". Fold in the ", ". Simmer it slowly with the ",
                           ". Roast it next to the "].map { escaped($0) }
        sentenceEnds = [" until tender.", " until golden.", " for a few minutes.",
                        ", stirring now and then.", " until the sauce thickens."].map { escaped($0) }
        units = ["g", "ml", "tbsp", "tsp", "cup", "pinch", "clove", "slice"].map { escaped($0) }
    }

    /// Appends a recipe name built from one of several patterns.
    func appendRecipeName(picks: [Int], chef: Int, random: inout SplitMix64, to out: inout [UInt8]) {
        let a = titles[picks[0]]
        let b = titles[picks[1]]
        let dish = dishes[random.next(below: dishes.count)]
        let adjective = adjectives[random.next(below: adjectives.count)]
        let start = out.count
        switch random.next(below: 6) {
        case 0:
            out += adjective; out.append(0x20); out += a; out.append(0x20); out += dish
        case 1:
            out += a; out.append(0x20); out += dish; out += bytes(" à la "); out += chefFamilyNames[chef]
        case 2:
            out += adjective; out.append(0x20); out += dish; out += bytes(" with "); out += a
            out += bytes(" and "); out += b
        case 3:
            out += dish; out += bytes(" de "); out += a
        case 4:
            out += chefFamilyNames[chef]; out += bytes("'s "); out += adjective; out.append(0x20); out += dish
        default:
            out += a; out += bytes(" & "); out += b; out.append(0x20); out += dish
        }
        if random.chance(percent: 3) {
            // A few names in lower case, for case-insensitive search to find.
            for i in start..<out.count where out[i] >= UInt8(ascii: "A") && out[i] <= UInt8(ascii: "Z") {
                out[i] |= 0x20
            }
        }
    }

    /// Appends `, "quantity": …` and usually `, "unit": "…"`.
    func appendQuantity(random: inout SplitMix64, to out: inout [UInt8]) {
        out += fragments.quantity
        let kind = random.next(below: units.count + 2)
        switch kind {
        case 0: appendInteger(25 * (1 + random.next(below: 40)), to: &out)  // g
        case 1: appendInteger(50 * (1 + random.next(below: 20)), to: &out)  // ml
        case 2, 4, 6, 7: appendInteger(1 + random.next(below: 6), to: &out)
        case 3, 5:
            let halves = 1 + random.next(below: 6)
            appendInteger(halves / 2, to: &out)
            out += halves % 2 == 0 ? fragments.pointZero : fragments.pointFive
        default: appendInteger(1 + random.next(below: 12), to: &out)  // a count, no unit
        }
        if kind < units.count {
            out += fragments.unit
            out += units[kind]
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Appends two to four short sentences that mention the recipe's ingredients.
    func appendInstructions(picks: [Int], random: inout SplitMix64, to out: inout [UInt8]) {
        let sentences = 1 + random.next(below: 2)
        for s in 0..<sentences {
            if s > 0 { out.append(0x20) }
            out += sentenceOpeners[random.next(below: sentenceOpeners.count)]
            out += shortNames[picks[random.next(below: picks.count)]]
            out += sentenceMiddles[random.next(below: sentenceMiddles.count)]
            out += shortNames[picks[random.next(below: picks.count)]]
            out += sentenceEnds[random.next(below: sentenceEnds.count)]
        }
    }
}

/// The UTF-8 bytes of `text`.
private func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// The UTF-8 bytes of `text` escaped for use inside a JSON string.
func escaped(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count)
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case ..<0x20:
            out += Array("\\u00".utf8)
            out += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        default: out.append(byte)
        }
    }
    return out
}

/// `text` with the first letter of each space- or hyphen-separated word upper-cased.
private func titleCased(_ text: String) -> String {
    var result = ""
    var atWordStart = true
    for character in text {
        result += atWordStart ? character.uppercased() : String(character)
        atWordStart = character == " " || character == "-"
    }
    return result
}
