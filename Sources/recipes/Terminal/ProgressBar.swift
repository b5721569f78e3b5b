import ObjectGraph
import Glibc

/// A one-line progress display for long work: count, total, rate and time left, redrawn
/// in place on standard error.
///
/// Get one from ``CommandContext/makeProgressBar(label:total:)``, which returns a silent
/// bar unless the session is interactive, not `--deterministic`, and standard error is a
/// terminal — so scripts and tests never see progress output. The bar is `Sendable`:
/// call it from a background task as freely as from the main actor. Redraws are
/// throttled to about ten per second, so calling ``update(done:)`` per item is cheap.
///
/// ```swift
/// let progress = context.makeProgressBar(label: "import", total: rows.count)
/// for (index, batch) in batches.enumerated() {
///     try context.interrupt.check()
///     try save(batch)
///     progress.update(done: (index + 1) * batchSize)
/// }
/// progress.finish()
/// // on the terminal, while running:  import  12,000/50,000  24%  3,210/s  0:11 left
/// ```
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var lastDraw: ContinuousClock.Instant?
        var isFinished = false
    }

    /// The word shown first, such as `import`.
    let label: String
    /// The number of items expected, when known.
    let total: Int?
    /// False for a silent bar: every call returns at once.
    let isEnabled: Bool
    private let start: ContinuousClock.Instant
    private let interval: Duration
    private let draw: @Sendable (String) -> Void
    private let state = Locked(State())

    /// Creates a bar.
    ///
    /// - Parameters:
    ///   - label: the word shown first.
    ///   - total: the number of items expected, if known.
    ///   - isEnabled: false for a bar that prints nothing.
    ///   - interval: the minimum time between two redraws.
    ///   - draw: receives each frame; by default writes it to standard error.
    init(label: String, total: Int?, isEnabled: Bool, interval: Duration = .milliseconds(100),
         draw: @escaping @Sendable (String) -> Void = { StandardStreams.write($0, to: STDERR_FILENO) }) {
        self.label = label
        self.total = total
        self.isEnabled = isEnabled
        self.interval = interval
        self.draw = draw
        self.start = .now
    }

    /// A bar that never prints.
    static func silent(label: String = "", total: Int? = nil) -> ProgressBar {
        ProgressBar(label: label, total: total, isEnabled: false)
    }

    /// Records that `done` items are finished, redrawing if the last frame is old enough.
    func update(done: Int) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        let frame: String? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.done = done
            if let last = state.lastDraw, now - last < interval, done != total { return nil }
            state.lastDraw = now
            return "\r" + ProgressBar.render(label: label, done: done, total: total,
                                              elapsed: now - start) + "\u{1B}[K"
        }
        if let frame { draw(frame) }
    }

    /// Records `count` more finished items.
    func advance(by count: Int = 1) {
        guard isEnabled else { return }
        update(done: state.withLock { $0.done } + count)
    }

    /// Erases the bar; later updates are ignored. Print the command's summary afterwards.
    func finish() {
        guard isEnabled else { return }
        let wasDrawn = state.withLock { state in
            defer { state.isFinished = true }
            return !state.isFinished && state.lastDraw != nil
        }
        if wasDrawn { draw("\r\u{1B}[K") }
    }

    /// One frame of text, without the control characters.
    ///
    /// ```swift
    /// ProgressBar.render(label: "import", done: 12_000, total: 50_000, elapsed: .seconds(4))
    /// // "import  12,000/50,000  24%  3,000/s  0:13 left"
    /// ```
    static func render(label: String, done: Int, total: Int?, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds)
            + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0.001 ? Double(done) / seconds : 0
        var parts = [label]
        if let total {
            parts.append("\(grouped(done))/\(grouped(total))")
            parts.append("\(total > 0 ? min(100, done * 100 / total) : 100)%")
        } else {
            parts.append(grouped(done))
        }
        parts.append("\(grouped(Int(rate.rounded())))/s")
        if let total, rate > 0, done < total {
            parts.append("\(clock(Int((Double(total - done) / rate).rounded(.up)))) left")
        }
        return parts.joined(separator: "  ")
    }

    /// `1234567` as `1,234,567` (fixed format: no locale, so frames are reproducible).
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// Seconds as `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Int) -> String {
        let (hours, rest) = seconds.quotientAndRemainder(dividingBy: 3600)
        let (minutes, secs) = rest.quotientAndRemainder(dividingBy: 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
