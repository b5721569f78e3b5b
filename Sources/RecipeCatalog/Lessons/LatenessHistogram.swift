/// Counts lateness samples in log-linear buckets, so percentiles cost fixed memory however
/// long the shell runs.
///
/// Samples are microseconds. Below 64 µs every value has a bucket of its own; above, each
/// power of two is split into 32 buckets, so a percentile is reported within about 3 % of
/// the true sample (the bucket's upper bound, never above the worst sample, which is kept
/// exactly). Recording is an index computation and one increment: cheap enough for a
/// timer that fires every few milliseconds on the main actor.
///
/// ```swift
/// var histogram = LatenessHistogram()
/// for microseconds in [40, 45, 1_200] { histogram.record(microseconds: microseconds) }
/// histogram.percentile(50)   // 45
/// histogram.worst            // 1_200
/// ```
struct LatenessHistogram: Sendable, Equatable {
    /// Values below this have exact buckets.
    private static let exactLimit: UInt64 = 64
    /// Buckets per power of two above ``exactLimit`` (a power of two itself).
    private static let bucketsPerOctave = 32
    /// log2(exactLimit) and log2(bucketsPerOctave).
    private static let exactBits = 6, octaveBits = 5

    private var counts = [UInt32](repeating: 0, count: LatenessHistogram.bucketCount)
    /// The number of samples recorded.
    private(set) var count = 0
    /// The largest sample, in microseconds (0 when empty).
    private(set) var worst: UInt64 = 0

    /// Creates an empty histogram.
    init() {}

    /// Buckets for every `UInt64`: the exact ones, then 32 per octave from 2^6 to 2^63.
    private static var bucketCount: Int { Int(exactLimit) + (64 - exactBits) * bucketsPerOctave }

    /// Adds one sample.
    mutating func record(microseconds value: UInt64) {
        counts[Self.bucket(of: value)] &+= 1
        count += 1
        worst = max(worst, value)
    }

    /// Forgets every sample.
    mutating func reset() { self = LatenessHistogram() }

    /// The smallest recorded value that `percent` % of the samples do not exceed (within a
    /// bucket's width), or 0 when there are none.
    ///
    /// - Parameter percent: 0 to 100; 50 is the median, 100 the worst.
    /// - Complexity: O(number of buckets), about 1,900.
    func percentile(_ percent: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * percent / 100).rounded(.up)))
        var seen = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += Int(bucketCount)
            if seen >= rank { return min(worst, Self.upperBound(of: index)) }
        }
        return worst
    }

    /// The bucket that holds `value`.
    static func bucket(of value: UInt64) -> Int {
        guard value >= exactLimit else { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount  // at least exactBits
        let mantissa = Int((value >> UInt64(exponent - octaveBits)) & UInt64(bucketsPerOctave - 1))
        return Int(exactLimit) + (exponent - exactBits) * bucketsPerOctave + mantissa
    }

    /// The largest value that falls in bucket `index`.
    static func upperBound(of index: Int) -> UInt64 {
        guard index >= Int(exactLimit) else { return UInt64(index) }
        let (octave, mantissa) = (index - Int(exactLimit)).quotientAndRemainder(dividingBy: bucketsPerOctave)
        let shift = UInt64(octave + exactBits - octaveBits)
        let next = UInt64(bucketsPerOctave + mantissa + 1)
        // The last bucket of the last octave ends at UInt64.max.
        return next << shift == 0 ? UInt64.max : (next << shift) &- 1
    }
}
