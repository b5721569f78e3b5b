internal import Foundation

/// Parses the dates of the import format without a `DateFormatter`.
///
/// Accepted: `YYYY-MM-DD` (midnight UTC) and ISO 8601 date-times
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH:MM` (or no zone, read as UTC).
enum ImportDate {
    /// The date that `text` denotes, or `nil` when it is not a valid date.
    static func parse(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)
        utf8.append(0)  // sentinel
        var i = 0
        func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                let byte = utf8[i]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                i += 1
            }
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard utf8[i] == character.asciiValue else { return false }
            i += 1
            return true
        }
        let end = utf8.count - 1
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"),
              let day = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if i == end { return Date(timeIntervalSince1970: seconds) }
        guard utf8[i] == UInt8(ascii: "T") || utf8[i] == UInt8(ascii: "t") || utf8[i] == UInt8(ascii: " ") else {
            return nil
        }
        i += 1
        guard let hour = digits(2), expect(":"), let minute = digits(2),
              hour < 24, minute < 60 else { return nil }
        var second = 0.0
        if expect(":") {
            guard let whole = digits(2), whole < 61 else { return nil }
            second = Double(whole)
            if expect(".") {
                var scale = 0.1
                var any = false
                while utf8[i] >= UInt8(ascii: "0"), utf8[i] <= UInt8(ascii: "9") {
                    second += Double(utf8[i] - UInt8(ascii: "0")) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        seconds += Double(hour * 3600 + minute * 60) + second
        if i == end { return Date(timeIntervalSince1970: seconds) }
        if expect("Z") || expect("z") {
            return i == end ? Date(timeIntervalSince1970: seconds) : nil
        }
        let sign: Double
        if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
        guard let offsetHours = digits(2), offsetHours < 24 else { return nil }
        _ = expect(":")
        guard let offsetMinutes = digits(2), offsetMinutes < 60, i == end else { return nil }
        return Date(timeIntervalSince1970: seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60))
    }

    /// The number of days in `month` of `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (inverse of ``daysFromCivil(year:month:day:)``).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
