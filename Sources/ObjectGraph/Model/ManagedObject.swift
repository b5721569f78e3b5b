/// An object of the graph (placeholder until the object layer lands).
open class ManagedObject: ManagedBuffer<ObjectHeader, ObjectSlot> {
    /// The object's identity.
    public var objectID: ObjectID { header.objectID }
}
