package import Foundation

/// Dates as ISO 8601 text in UTC, in the proleptic Gregorian calendar, as ISO 8601 has them:
/// the Gregorian leap-year rule also before the reform of 1582, where Foundation's ISO 8601
/// style switches to the Julian calendar (and so reads and writes `1500-01-01` nine days
/// away from what every other ISO 8601 reader means by it).
///
/// Years 0000–9999 have four digits; others a sign and at least four (`-0044-03-15`;
/// year 0000 is 1 BC), ISO 8601's expanded form. Every path that reads or writes a date as
/// text uses this type, so a date round-trips exactly: the importer, the shell's values and
/// printing, the atomic stores' text formats and conflict messages.
///
/// ```swift
/// let date = ISO8601Date.parse("1500-01-01")!      // -14_831_769_600 s since 1970
/// ISO8601Date.string(from: date, dateAloneAtMidnight: true)   // "1500-01-01"
/// ```
package enum ISO8601Date {
    /// The date that `text` denotes, or `nil` when it is not one, or names a day or time
    /// that does not exist (`2023-02-29`, `24:00`, a 60th second).
    ///
    /// Accepted: `YYYY-MM-DD` (midnight UTC) and `YYYY-MM-DDTHH:MM[:SS[.fraction]]` (`T`,
    /// `t` or a space between), followed by `Z`, `±HH:MM`, `±HHMM` or nothing (UTC). A year
    /// has four digits, or a sign and four to six.
    package static func parse(_ text: String) -> Date? {
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
        var year: Int
        if expect("-") || expect("+") {
            let negative = utf8[0] == UInt8(ascii: "-")
            guard let first = digits(4) else { return nil }
            year = first
            for _ in 0..<2 {
                guard let next = digits(1) else { break }
                year = year * 10 + next
            }
            if negative { year = -year }
        } else {
            guard let plain = digits(4) else { return nil }
            year = plain
        }
        guard expect("-"), let month = digits(2), expect("-"), let day = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if i == end { return Date(timeIntervalSince1970: seconds) }
        guard expect("T") || expect("t") || expect(" ") else { return nil }
        guard let hour = digits(2), expect(":"), let minute = digits(2),
              hour < 24, minute < 60 else { return nil }
        var second = 0.0
        if expect(":") {
            guard let whole = digits(2), whole < 60 else { return nil }
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

    /// `date` as ISO 8601 in UTC: `2024-03-05T18:30:00Z`, with milliseconds when it does not
    /// fall on a whole second (`…T18:30:00.250Z`), and the day alone (`2024-03-05`) at
    /// midnight when `dateAloneAtMidnight`. A date more than about 30 million years away,
    /// or not finite, is its seconds since 1970.
    package static func string(from date: Date, dateAloneAtMidnight: Bool = false) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return String(seconds) }
        let days = (seconds / 86_400).rounded(.down)
        let (year, month, day) = civilFromDays(Int(days))
        let yearText = (0...9999).contains(year)
            ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), 4)
        let dayText = "\(yearText)-\(pad(month, 2))-\(pad(day, 2))"
        let ofDay = seconds - days * 86_400
        if dateAloneAtMidnight && ofDay == 0 { return dayText }
        let whole = Int(ofDay.rounded(.down))
        var text = "\(dayText)T\(pad(whole / 3600, 2)):\(pad(whole / 60 % 60, 2)):\(pad(whole % 60, 2))"
        if ofDay != Double(whole) {
            text += "." + pad(min(999, Int(((ofDay - Double(whole)) * 1000).rounded(.down))), 3)
        }
        return text + "Z"
    }

    /// `value` in decimal with at least `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The number of days in `month` of `year`.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (inverse of ``daysFromCivil(year:month:day:)``).
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
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
