import Foundation
import RecipeCatalog

/// The probe's percentiles as `.stats` prints them.
extension LatenessSummary {
    /// `p50 0.041 ms  p99 1.31 ms  worst 14.2 ms  (12,345 ticks)`.
    var description: String {
        func milliseconds(_ microseconds: UInt64) -> String {
            let value = Double(microseconds) / 1_000
            return String(format: value < 1 ? "%.3f ms" : value < 10 ? "%.2f ms" : "%.1f ms", value)
        }
        let ticks = "\(ProgressBar.grouped(self.ticks)) tick\(self.ticks == 1 ? "" : "s")"
        return "p50 \(milliseconds(p50))  p99 \(milliseconds(p99))  worst \(milliseconds(worst))  (\(ticks))"
    }
}
