import ObjectGraphSQL
extension SQLFragment {
    /// The statement as PostgreSQL takes it: its `?` marks numbered `$1`, `$2`…, in argument
    /// order (fragments combine freely, so they are numbered only once the statement is whole).
    var text: String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + arguments.count * 2)
        var number = 0
        for character in sql {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
