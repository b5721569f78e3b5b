extension Array where Element: AnyObject {
    /// Calls `body` with each element without retaining it, as a save's per-object loops
    /// do: a `for object in array` loop retains and releases every element, two atomic
    /// operations per object. The array keeps its elements alive, and `body` must not
    /// change it.
    @inline(__always)
    func forEachUnretained(_ body: (Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { objects in
            for index in objects.indices {
                try Unmanaged.passUnretained(objects[index])._withUnsafeGuaranteedRef(body)
            }
        }
    }
}
