/// The hooks through which a main context's saves, merges and batch requests reach its
/// results controllers.
extension MainContext {
    /// Tells the results controllers about an event (from a copy of the list: a delegate
    /// may start another controller meanwhile).
    func didChange(_ change: ContextChange) {
        let controllers = resultsControllers
        controllers.contextDidChange(change)
    }

    /// Tells the results controllers what a batch request changed, and returns it.
    func reported(_ result: BatchResult) -> BatchResult {
        didChange(ContextChange(result))
        return result
    }
}
