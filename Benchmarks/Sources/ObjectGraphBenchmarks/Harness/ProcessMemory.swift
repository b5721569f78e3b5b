import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's resident memory, read from `/proc/self/status` (Linux; zeros elsewhere).
enum ProcessMemory {
    /// The resident set now (`VmRSS`) and its peak since the last reset (`VmHWM`), in bytes.
    static func read() -> (resident: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var resident = 0, peak = 0
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("VmHWM:") {
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
            if line.hasPrefix("VmRSS:") { resident = kilobytes * 1024 } else { peak = kilobytes * 1024 }
        }
        return (resident, peak)
    }

    /// Hands freed heap back to the system, then resets the peak to the current resident set
    /// (writing `5` to `/proc/self/clear_refs`), so the next ``read()`` covers only what follows.
    /// - Returns: whether the peak could be reset.
    @discardableResult
    static func resetPeak() -> Bool {
        #if canImport(Glibc)
        trimHeap()
        let file = open("/proc/self/clear_refs", O_WRONLY)
        guard file >= 0 else { return false }
        defer { close(file) }
        return write(file, "5", 1) == 1
        #else
        return false
        #endif
    }

    #if canImport(Glibc)
    /// Calls glibc's `malloc_trim(0)`, looked up at run time because the Glibc module does not
    /// import `<malloc.h>`; does nothing when the symbol is missing (another C library).
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
}
