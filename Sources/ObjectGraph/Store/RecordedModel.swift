import Foundation

/// The model a store file was written with, as its metadata records it: each entity's
/// version hash (``ObjectModel/versionHashes``) and storage description
/// (``ObjectModel/storageDescriptions``), under the keys the SQLite store uses.
///
/// The atomic stores record it at every save and check it when opened, so a file written
/// with another model fails with `modelMismatch` before a reader maps its objects:
///
/// ```swift
/// if let differences = RecordedModel.differences(between: metadata, and: model) {
///     throw ObjectGraphError(.modelMismatch, "… made with a different model: \(differences.summary)")
/// }
/// metadata.merge(RecordedModel.metadata(of: model)) { $1 }
/// ```
package enum RecordedModel {
    /// Each entity's version hash, as a JSON object.
    package static let versionHashesKey = "_versionHashes"
    /// Each entity's storage description, as a JSON object, to name what changed.
    package static let entityDescriptionsKey = "_entityDescriptions"

    /// The metadata entries that record `model`.
    package static func metadata(of model: ObjectModel) -> [String: String] {
        [versionHashesKey: encodeJSON(model.versionHashes), entityDescriptionsKey: encodeJSON(model.storageDescriptions)]
    }

    /// What differs between the model `metadata` records and `model`; nil when they are the
    /// same, and when `metadata` records no model this can vouch for: files written before
    /// stores recorded one, or whose hashes do not belong to their descriptions (edited by
    /// hand, or damaged). Those are read as before, by mapping names onto the model.
    package static func differences(between metadata: [String: String], and model: ObjectModel) -> ModelDifferences? {
        guard let hashes = metadata[versionHashesKey].flatMap(decodeJSON),
              let descriptions = metadata[entityDescriptionsKey].flatMap(decodeJSON),
              !hashes.isEmpty, Set(hashes.keys) == Set(descriptions.keys),
              hashes.allSatisfy({ ObjectModel.versionHash(ofDescription: descriptions[$0.key]!) == $0.value })
        else { return nil }
        guard hashes != model.versionHashes else { return nil }
        return ModelDifferences(stored: descriptions, current: model.storageDescriptions)
    }

    /// `values` as a JSON object with sorted keys, as stores record a model in their metadata.
    package static func encodeJSON(_ values: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// A JSON object of strings, as ``encodeJSON(_:)`` writes it; nil for anything else.
    package static func decodeJSON(_ text: String) -> [String: String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String]
    }
}
