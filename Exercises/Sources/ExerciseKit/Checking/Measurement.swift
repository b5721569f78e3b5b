/// One figure a checker measured through the framework's instrumentation, with its budget.
///
/// Budgets are upper bounds on counts (statements, transactions, faults, objects alive), which
/// are exact and repeatable, so they can gate; wall time never does.
///
/// ```swift
/// Measurement("transactions", value: 2_000, budget: 10,
///             advice: "each save() commits one transaction: save once per few hundred recipes")
/// ```
public struct Measurement: Codable, Sendable, Equatable {
    /// What was counted, for example `transactions`.
    public var name: String
    /// The measured count.
    public var value: Int
    /// The most the exercise allows.
    public var budget: Int
    /// What an excess usually means, shown when the value is over budget.
    public var advice: String

    /// Creates a measurement.
    public init(_ name: String, value: Int, budget: Int, advice: String) {
        self.name = name
        self.value = value
        self.budget = budget
        self.advice = advice
    }

    /// Whether the value is within the budget.
    public var isWithinBudget: Bool { value <= budget }
}

extension Int {
    /// The number with thousands separators: `12,345`.
    public var grouped: String {
        let digits = String(magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return self < 0 ? "-" + result : result
    }
}
