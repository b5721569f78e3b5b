import ObjectGraph

/// Weak references to objects, to count how many of them are still alive.
struct WeakObjects {
    private struct Reference { weak var object: ManagedObject? }
    private var references: [Reference] = []

    /// Starts counting `objects`.
    mutating func add(_ objects: [ManagedObject]) { references += objects.map { Reference(object: $0) } }

    /// How many of the objects are alive.
    var alive: Int { references.count { $0.object != nil } }
}
