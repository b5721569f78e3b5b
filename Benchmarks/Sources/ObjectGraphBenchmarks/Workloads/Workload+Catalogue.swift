/// Every workload by its short name.
extension Workload {
    /// Builds the workload called `name`, with its fixture.
    @MainActor
    static func make(_ name: WorkloadName, _ environment: BenchmarkEnvironment) throws -> Workload {
        switch name {
        case .catalogue: try catalogue(environment)
        case .insert: insert(environment)
        case .fetch: try fetch(environment)
        case .words: try words(environment)
        case .faults: try faults(environment)
        case .count: try count(environment)
        case .search: try search(environment)
        case .delete: try delete(environment)
        case .saveeach: saveEach(environment)
        }
    }
}
