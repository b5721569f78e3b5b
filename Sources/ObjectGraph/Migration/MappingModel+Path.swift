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
    /// - Parameters:
    ///   - storedDescriptions: the storage descriptions the store recorded, if it has them,
    ///     to name what changed when there is no way.
    ///   - store: the store, as errors name it: `the store at '/tmp/a.sqlite'`.
    /// - Throws: ``ObjectGraphError`` `cannotInferMapping` when the inference refuses;
    ///   `modelMismatch`, saying what changed and what to add to the options, when no mapping
    ///   model or source model leads to `model`.
    package static func migrationPath(
        from hashes: [String: String], storedDescriptions: [String: String]?, to model: ObjectModel,
        mappingModels: [MappingModel], sourceModels: [ObjectModel], inferring: Bool, store: String
    ) throws -> [MappingModel] {
        if let path = try path(from: hashes, to: model, mappingModels: mappingModels, sourceModels: sourceModels,
                               inferring: inferring) {
            return path
        }
        let differences = storedDescriptions.map { ModelDifferences(stored: $0, current: model.storageDescriptions) }
            ?? ModelDifferences(stored: hashes, current: model.versionHashes)
        if !inferring, sourceModels.contains(where: { $0.versionHashes == hashes }) {
            throw ObjectGraphError(.modelMismatch,
                "\(store) was made with one of the options' sourceModels, but no mapping model migrates it and shouldInferMappingModelAutomatically is off: \(differences.summary). Add a mapping model to mappingModels, or turn inference on.")
        }
        throw ObjectGraphError(.modelMismatch,
            "\(store) was made with a model that no given source model or mapping model matches: \(differences.summary). Add the model it was made with to the options' sourceModels (or a mapping model to mappingModels).")
    }

    /// ``migrationPath(from:storedDescriptions:to:mappingModels:sourceModels:inferring:store:)``'s
    /// way, nil when there is none.
    private static func path(
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
