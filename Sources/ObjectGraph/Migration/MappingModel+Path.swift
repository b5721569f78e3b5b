extension MappingModel {
    /// The mappings that take a store written with the model of `hashes` to `model`, one
    /// version at a time: a mapping model that goes straight there; else the first mapping
    /// model that starts from the store's version, followed by the path from its destination
    /// (so a v1→v2 mapping with policies runs before v2 is inferred on to v3, rather than
    /// being skipped by a v1→v3 inference that would drop what its policies make); else a
    /// mapping inferred from the store's version (one of `sourceModels`, or the destination
    /// of a mapping model run before). Nil when there is none.
    ///
    /// Every store that migrates when it opens (SQLite, PostgreSQL) finds its way with it.
    /// - Throws: ``ObjectGraphError`` `cannotInferMapping` when the inference refuses.
    package static func migrationPath(
        from hashes: [String: String], to model: ObjectModel,
        mappingModels: [MappingModel], sourceModels: [ObjectModel], inferring: Bool
    ) throws -> [MappingModel]? {
        var path: [MappingModel] = []
        var current = hashes, visited: Set<[String: String]> = [hashes]
        while current != model.versionHashes {
            if let direct = mappingModels.first(where: {
                $0.sourceModel.versionHashes == current && $0.destinationModel.versionHashes == model.versionHashes
            }) {
                return path + [direct]
            }
            if let step = mappingModels.first(where: {
                $0.sourceModel.versionHashes == current && !visited.contains($0.destinationModel.versionHashes)
            }) {
                path.append(step)
                current = step.destinationModel.versionHashes
                visited.insert(current)
                continue
            }
            let known = sourceModels + path.map(\.destinationModel)
            guard inferring, let sourceModel = known.first(where: { $0.versionHashes == current }) else { return nil }
            return path + [try MappingModel.inferred(from: sourceModel, to: model)]
        }
        return path
    }
}
