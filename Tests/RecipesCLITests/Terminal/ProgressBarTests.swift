import ObjectGraph
import Testing
@testable import recipes

/// Frame text, throttling and silence of the progress bar.
@Suite("ProgressBar")
struct ProgressBarTests {
    @Test("A frame shows count, total, percentage, rate and time left")
    func frameWithTotal() {
        #expect(ProgressBar.render(label: "import", done: 12_000, total: 50_000, elapsed: .seconds(4))
            == "import  12,000/50,000  24%  3,000/s  0:13 left")
    }

    @Test("Without a total a frame shows count and rate only")
    func frameWithoutTotal() {
        #expect(ProgressBar.render(label: "scan", done: 1_234_567, total: nil, elapsed: .seconds(2))
            == "scan  1,234,567  617,284/s")
    }

    @Test("Numbers and durations use a fixed format", arguments: [
        (0, "0"), (999, "999"), (1_000, "1,000"), (-12_345, "-12,345"),
    ])
    func grouping(value: Int, text: String) { #expect(ProgressBar.grouped(value) == text) }

    @Test("Time left is m:ss, or h:mm:ss from an hour")
    func clock() {
        #expect(ProgressBar.clock(5) == "0:05")
        #expect(ProgressBar.clock(754) == "12:34")
        #expect(ProgressBar.clock(3_725) == "1:02:05")
    }

    @Test("Redraws are throttled, and the last frame and the erase are always drawn")
    func throttling() {
        let frames = Locked<[String]>([])
        let bar = ProgressBar(label: "t", total: 1_000, isEnabled: true, interval: .seconds(60)) { frame in
            frames.withLock { $0.append(frame) }
        }
        for done in 1...1_000 { bar.update(done: done) }
        bar.finish()
        bar.update(done: 5)
        let drawn = frames.withLock { $0 }
        #expect(drawn.count == 3)  // first update, the completed total, the erase
        #expect(drawn.first?.hasPrefix("\rt  1/1,000  0%") == true)
        #expect(drawn.last == "\r\u{1B}[K")
    }

    @Test("A silent bar draws nothing")
    func silent() {
        let frames = Locked<Int>(0)
        let bar = ProgressBar(label: "t", total: 10, isEnabled: false) { _ in frames.withLock { $0 += 1 } }
        bar.update(done: 10)
        bar.finish()
        #expect(frames.withLock { $0 } == 0)
    }
}
