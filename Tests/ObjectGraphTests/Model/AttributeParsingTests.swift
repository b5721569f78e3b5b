import Foundation
import Testing
@testable import ObjectGraph

/// Text a person types (a shell argument) becomes exactly the value typed, or an error.
struct AttributeParsingTests {
    func seconds(_ text: String) throws -> Double? {
        guard case .real(let value) = try AttributeType.date.parse(text, key: "published") else { return nil }
        return value
    }

    @Test("A date alone is midnight UTC of that day, leap days included")
    func datesAlone() throws {
        #expect(try seconds("2024-03-01") == 1_709_251_200)
        #expect(try seconds("2024-02-29") == 1_709_164_800)
        #expect(try seconds("2000-02-29") == 951_782_400)
    }

    @Test("A date-time keeps its time and zone (the date style alone read the date part and dropped the rest)")
    func dateTimes() throws {
        #expect(try seconds("2024-03-01T10:00:00Z") == 1_709_287_200)
        #expect(try seconds("2024-03-01T10:00:00+05:00") == 1_709_269_200)
        #expect(try seconds("2024-03-01T10:00:00.500Z") == 1_709_287_200.5)
        #expect(try seconds("2024-03-01T10:00Z") == 1_709_287_200)
    }

    @Test("Dates are proleptic Gregorian, as ISO 8601 has them, before the reform of 1582 too; years before 1 take a sign")
    func datesBeforeTheGregorianReform() throws {
        #expect(try seconds("1500-01-01") == -14_831_769_600)
        #expect(try seconds("1582-10-14") == -12_219_379_200)  // a day the switch from the Julian calendar skipped
        #expect(try seconds("0000-01-01") == -62_167_219_200)  // 1 BC
        #expect(try seconds("-0044-03-15") == -63_549_360_000)
        #expect(try seconds("-0044-03-15T12:00:00Z") == -63_549_316_800)
    }

    @Test("Days and times that do not exist are refused, not rolled over into the next month or day",
          arguments: ["2024-02-30", "2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-01-00",
                      "2024-03-01T24:00:00Z", "2024-03-01T23:60:00Z", "2024-03-01T23:59:60Z",
                      "2024-03-01junk", "24-03-01", "-44-03-15", "1500-02-29", "tomorrow"])
    func impossibleDates(text: String) throws {
        let error = try #require(throws: ObjectGraphError.self) { try AttributeType.date.parse(text, key: "published") }
        #expect(error.code == .invalidValue && error.message == "'\(text)' is not a valid Date for 'published'", "\(error.message)")
    }
}
