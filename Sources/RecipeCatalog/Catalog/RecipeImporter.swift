public import Foundation
public import ObjectGraph

/// Imports recipe files into a catalogue off the main actor, in batches that are saved and
/// then forgotten, so memory stays flat however large the file.
///
/// Chefs, cuisines and ingredients are found or created through a uniquing cache: one `IN`
/// fetch per entity per batch for the names not seen yet, never one fetch per row. Recipes
/// whose `id` is already in the catalogue are skipped, so importing a file twice changes
/// nothing. Each batch records its last line in the store's metadata in the same
/// transaction as its recipes; an import that was stopped (Ctrl-C, a crash) continues after
/// that line when run again. A batch that fails to save is retried in halves, so only the
/// lines that break a rule are lost, each named in the report. A chef, cuisine or ingredient
/// that another context deletes while the import runs is looked up (or created) again.
///
/// ```swift
/// let report = try await RecipeImporter(options: .init()).importFile(url, into: context)
/// print(report.imported, report.errors.count)
/// ```
public struct RecipeImporter: Sendable {
    /// How an import runs.
    public struct Options: Sendable {
        /// Recipes per save (and per reset of the context).
        public var batchSize = 1_000
        /// Whether chefs, cuisines and ingredients are found through the uniquing cache
        /// (one `IN` fetch per batch) or with one fetch per lookup (the slow way, for the lesson).
        public var usesUniquingCache = true
        /// Whether a previously stopped import of the same file continues after its last saved line.
        public var resumes = true
        /// Whether the context forgets its objects after each saved batch (the default, which
        /// keeps memory flat); the import demo turns it off to show why.
        public var resetsAfterSave = true
        /// How long to wait after each saved batch: an import in slow motion, to watch a job
        /// run (the shell's `import --pause MS`). Cancelling ends the wait at once.
        public var pauseAfterBatch: Duration = .zero
        /// Creates the default options.
        public init() {}
    }

    /// Progress, reported after every batch.
    public struct Progress: Sendable {
        /// Lines read so far.
        public var lines: Int
        /// Recipes saved so far.
        public var imported: Int
        /// The file's size in bytes and how many of them the lines read so far take, for a percentage.
        public var bytesRead: Int, totalBytes: Int
        /// Objects still registered (so alive: the context holds them only weakly) after the
        /// batch was saved, before any reset.
        public var registeredObjects: Int
    }

    /// What an import did.
    public struct Report: Sendable {
        /// Recipes saved.
        public var imported = 0
        /// Recipes skipped because their `id` was already in the catalogue.
        public var skippedExisting = 0
        /// Lines that could not be imported, with file and line number.
        public var errors: [ImportLineError] = []
        /// Lines read (blank lines included).
        public var lines = 0
        /// The line a resumed import started after (0 for a fresh import).
        public var resumedAfterLine = 0
        /// The line a stopped import of the file had reached when the file's lines up to it
        /// were no longer as that import read them (lines added, removed or edited before
        /// it, or another file in its place): this import then read the file from its first
        /// line, skipping the recipes already in the catalogue. 0 when it did not happen.
        public var changedSinceLine = 0
        /// The last line of the last batch saved (``resumedAfterLine`` when none was): where
        /// running the same import again resumes. A cancelled import read further than this.
        public var savedThroughLine = 0
        /// Whether the import stopped early because it was cancelled; every saved batch stays.
        public var wasCancelled = false
        /// Statements, rows and transactions the import ran.
        public var statistics = ContextStatistics()
        /// The smallest key of the recipes this import saved: a recipe found in the store with
        /// a key from there on was saved by this import, so a line with its `id` repeats an
        /// earlier line of the file rather than naming a recipe the catalogue had (keys grow).
        var firstImportedKey: Int64?
    }

    /// The options.
    public var options: Options

    /// Creates an importer.
    public init(options: Options = Options()) { self.options = options }

    /// The metadata key that records how far an import of `url` got.
    ///
    /// Its value is the last line saved and the byte offset in the file just after it,
    /// separated by a space (`"2500 2614306"`): an import that resumes checks that the line
    /// still ends there, and starts from the first line when it does not. (A value of the
    /// line alone, as older versions wrote, is trusted as it is.)
    public static func resumeKey(for url: URL) -> String { "import:" + url.standardizedFileURL.path }

    /// The value of a resume marker: the line and, when known, the offset just after it.
    static func markerValue(line: Int, offset: Int?) -> String {
        offset.map { "\(line) \($0)" } ?? String(line)
    }

    /// The line and offset a marker's value names; a line of 0 when there is none or it is not one.
    static func parseMarker(_ value: String?) -> (line: Int, offset: Int?) {
        let parts = (value ?? "").split(separator: " ")
        guard let first = parts.first, let line = Int(first), line > 0 else { return (0, nil) }
        return (line, parts.count > 1 ? Int(parts[1]) : nil)
    }

    /// Imports a JSON Lines recipe file.
    ///
    /// The file may also be a pipe or FIFO (`/dev/stdin`), read once; such an import keeps no
    /// resume marker, since the next one reads other lines. A cancel while it waits for the
    /// writer to send more stops the wait: the lines of the unfinished batch are dropped.
    ///
    /// - Parameters:
    ///   - isCancelled: polled between batches; when it returns true, or the calling task is
    ///     cancelled, the import stops after saving nothing more (the batch in progress is
    ///     rolled back) and the report says ``Report/wasCancelled``.
    ///   - progress: called after each batch.
    /// - Throws: ``ImportFileError`` when the file cannot be read; store errors while saving.
    ///   Bad lines are not thrown: they are in the report.
    public func importFile(
        _ url: URL, into context: PrivateContext,
        isCancelled: @escaping @Sendable () -> Bool = { false },
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Report {
        let options = self.options
        // Everything below runs on the context's queue, file access included: never on
        // Swift's cooperative pool, whose few threads must stay free.
        return try await context.perform { context in
            let store = context.coordinator.stores[0]
            let key = Self.resumeKey(for: url)
            // A pipe or FIFO holds other lines every time: there is nothing to resume.
            let resumes = options.resumes && RecipeFileReader.isRegularFile(url)
            let marker = resumes ? Self.parseMarker(store.metadata[key]) : (line: 0, offset: nil)
            let totalBytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            var report = Report()
            let before = context.statistics
            var uniquing = UniquingCache(usesCache: options.usesUniquingCache)
            var resumeAfter = marker.line
            // Nothing is saved before the reader passes the marker's line, so when the file
            // turns out to have changed there, reading it again from the start loses nothing.
            while try !Self.read(url, resumingAfter: resumeAfter, markerOffset: marker.offset, key: resumes ? key : nil,
                                 options: options, totalBytes: totalBytes, into: context,
                                 uniquing: &uniquing, report: &report, isCancelled: isCancelled, progress: progress) {
                report.changedSinceLine = resumeAfter
                resumeAfter = 0
            }
            if !report.wasCancelled && resumes { try store.setMetadata(nil, forKey: key) }
            report.errors.sort { $0.line < $1.line }
            report.statistics = context.statistics - before
            return report
        }
    }

    /// Reads the file once, saving its batches after line `resumeAfter`; returns `false`,
    /// having saved nothing, when the file's lines up to `resumeAfter` are not those a stopped
    /// import saved: line `resumeAfter` no longer ends at `markerOffset`, or the file ends
    /// before it. Each saved batch sets the resume marker `key`, when there is one.
    private static func read(
        _ url: URL, resumingAfter resumeAfter: Int, markerOffset: Int?, key: String?, options: Options,
        totalBytes: Int, into context: isolated PrivateContext, uniquing: inout UniquingCache,
        report: inout Report, isCancelled: @escaping () -> Bool, progress: (Progress) -> Void
    ) throws -> Bool {
        report.resumedAfterLine = resumeAfter
        report.savedThroughLine = resumeAfter
        report.lines = 0
        let reader = try RecipeFileReader(url: url, batchSize: options.batchSize,
                                          isCancelled: { isCancelled() || Task.isCancelled })
        while let batch = try reader.nextBatch() {
            report.lines = batch.lastLineNumber
            if isCancelled() || Task.isCancelled {
                report.wasCancelled = true
                return true
            }
            if resumeAfter > 0, let markerOffset, let offset = reader.byteOffset(afterLine: resumeAfter),
               offset != markerOffset {
                return false
            }
            guard batch.lastLineNumber > resumeAfter else { continue }
            let records = batch.records.filter { $0.lineNumber > resumeAfter }
            report.errors += batch.errors.filter { $0.line > resumeAfter }
            do {
                try save(records, through: batch.lastLineNumber, marker: key,
                         markerValue: { markerValue(line: $0, offset: reader.byteOffset(afterLine: $0)) },
                         file: url.lastPathComponent, into: context, uniquing: &uniquing, report: &report)
            } catch is CancellationError {
                // A read of this batch was cancelled: nothing of it was saved.
                context.rollback()
                uniquing.didRollBack()
                report.wasCancelled = true
                return true
            }
            report.savedThroughLine = batch.lastLineNumber
            let aliveAfterSave = context.statistics.registeredObjects
            if options.resetsAfterSave { context.reset() }
            progress(Progress(lines: batch.lastLineNumber, imported: report.imported,
                              bytesRead: min(totalBytes, reader.bytesParsed), totalBytes: totalBytes,
                              registeredObjects: aliveAfterSave))
            if options.pauseAfterBatch > .zero { pause(options.pauseAfterBatch, isCancelled: isCancelled) }
        }
        if reader.wasCancelled {  // while a pipe kept it waiting for the rest of a batch
            report.wasCancelled = true
            return true
        }
        return report.lines >= resumeAfter
    }

    /// Waits `duration` on the import's context queue (never Swift's cooperative pool), in
    /// steps of at most 10 ms, so that a cancel ends the wait promptly.
    private static func pause(_ duration: Duration, isCancelled: () -> Bool) {
        var left = duration
        while left > .zero, !isCancelled(), !Task.isCancelled {
            let step = min(left, .milliseconds(10))
            Thread.sleep(forTimeInterval: Double(step.components.seconds) + Double(step.components.attoseconds) / 1e18)
            left -= step
        }
    }

    /// Inserts and saves `records`, with the resume marker `marker` set to `lastLine` in the
    /// same transaction, so the marker never runs ahead of (or behind) the saved data;
    /// `markerValue` gives the marker's value for a line.
    ///
    /// When the save fails on a record that breaks a rule (validation, a uniqueness
    /// constraint), the records are tried again in halves, down to the bad ones: only they
    /// are lost, each reported with its line. Other failures (a locked or broken store) are
    /// thrown: the import stops, and the marker still names the last batch saved.
    ///
    /// When the save fails because a chef, cuisine or ingredient the uniquing cache knew was
    /// deleted meanwhile by another context (the user, in the foreground), the cache forgets
    /// everything and the records are inserted and saved once more: the names are then
    /// looked up again, and created again where they are gone.
    static func save(
        _ records: [RecipeRecord], through lastLine: Int, marker: String?,
        markerValue: (Int) -> String = { String($0) }, file: String, into context: isolated PrivateContext,
        uniquing: inout UniquingCache, report: inout Report, isRetryAfterDeletion: Bool = false
    ) throws {
        do {
            let outcome = try insert(records, file: file, importedSince: report.firstImportedKey,
                                     into: context, uniquing: &uniquing)
            if let marker { context.setMetadata(markerValue(lastLine), forKey: marker) }
            try context.save()
            uniquing.didSave()
            report.imported += outcome.inserted
            if report.firstImportedKey == nil { report.firstImportedKey = outcome.recipes.map(\.objectID.key).min() }
            report.skippedExisting += outcome.skipped
            report.errors += outcome.errors
        } catch let error as ObjectGraphError where error.code == .validation || error.code == .constraintViolation {
            context.rollback()
            uniquing.didRollBack()
            guard records.count > 1 else {
                let line = records.first?.lineNumber ?? lastLine
                // The save's "nothing was saved" is about this one line: the rest were saved.
                let reason = error.message.replacingOccurrences(of: "; nothing was saved", with: "")
                report.errors.append(ImportLineError(file: file, line: line, message: "not imported: \(reason)"))
                if let marker {  // the bad line is behind us: move the marker past it
                    context.setMetadata(markerValue(lastLine), forKey: marker)
                    try context.save()
                }
                return
            }
            let half = records.count / 2
            let first = Array(records[..<half]), second = Array(records[half...])
            try save(first, through: first.last!.lineNumber, marker: marker, markerValue: markerValue, file: file,
                     into: context, uniquing: &uniquing, report: &report)
            try save(second, through: lastLine, marker: marker, markerValue: markerValue, file: file,
                     into: context, uniquing: &uniquing, report: &report)
        } catch let error as ObjectGraphError where error.code == .objectNotFound && !isRetryAfterDeletion {
            context.rollback()
            uniquing.forgetAll()
            try save(records, through: lastLine, marker: marker, markerValue: markerValue, file: file,
                     into: context, uniquing: &uniquing, report: &report, isRetryAfterDeletion: true)
        } catch {
            context.rollback()
            uniquing.didRollBack()
            throw error
        }
    }

    /// Inserts one batch of records; returns how many were inserted and skipped, the lines
    /// whose `id` repeats an earlier line, and the recipes inserted.
    ///
    /// A record whose `id` the store has is skipped: counted as already in the catalogue, or,
    /// when the recipe's key is `importedSince` or more (this import saved it), reported as
    /// repeating an earlier line, as a repeat within the batch is.
    static func insert(
        _ records: [RecipeRecord], file: String, importedSince: Int64? = nil,
        into context: isolated PrivateContext, uniquing: inout UniquingCache
    ) throws -> (inserted: Int, skipped: Int, errors: [ImportLineError], recipes: [ManagedObject]) {
        var errors: [ImportLineError] = []
        // Skip ids already saved, and repeats inside the batch; ids compare by their bytes,
        // as the store compares them.
        let existing = try existingSourceIDs(records.map(\.sourceID), context: context)
        var seen: [ExactText: Int] = [:]
        var fresh: [RecipeRecord] = []
        var skipped = 0
        for record in records {
            if let key = existing[ExactText(record.sourceID)] {
                if let importedSince, key >= importedSince {
                    errors.append(ImportLineError(file: file, line: record.lineNumber, message:
                        "id \"\(record.sourceID)\" repeats an earlier line of the file; the later line was skipped"))
                } else {
                    skipped += 1
                }
            } else if let first = seen[ExactText(record.sourceID)] {
                errors.append(ImportLineError(file: file, line: record.lineNumber,
                    message: "id \"\(record.sourceID)\" repeats line \(first); the later line was skipped"))
            } else {
                seen[ExactText(record.sourceID)] = record.lineNumber
                fresh.append(record)
            }
        }
        try uniquing.prepare(for: fresh, in: context)
        let model = context.model
        let recipeEntity = model.entity(named: CatalogModel.recipe)!
        let lineEntity = model.entity(named: CatalogModel.recipeIngredient)!
        let photoEntity = model.entity(named: CatalogModel.recipePhoto)!
        var recipes: [ManagedObject] = []
        recipes.reserveCapacity(fresh.count)
        for record in fresh {
            let recipe = context.insert(recipeEntity) as! Recipe
            recipes.append(recipe)
            recipe.name = record.name
            recipe.sourceID = record.sourceID
            recipe.instructions = record.instructions
            recipe.course = record.course
            recipe.prepMinutes = record.prepMinutes
            recipe.cookMinutes = record.cookMinutes
            recipe.servings = record.servings
            recipe.rating = record.rating
            recipe.published = record.published
            if let name = record.chef { recipe.chef = try uniquing.chef(named: name, in: context) }
            if let name = record.cuisine { recipe.cuisine = try uniquing.cuisine(named: name, in: context) }
            for (position, line) in record.ingredients.enumerated() {
                let item = context.insert(lineEntity) as! RecipeIngredient
                item.quantity = line.quantity
                item.unit = line.unit
                item.displayOrder = position
                item.recipe = recipe
                item.ingredient = try uniquing.ingredient(named: line.name, in: context)
            }
            if let data = record.photo {
                let photo = context.insert(photoEntity) as! RecipePhoto
                photo.data = data
                photo.recipe = recipe
            }
        }
        return (fresh.count, skipped, errors, recipes)
    }

    /// The source IDs among `ids` that the catalogue already has, with their recipes' keys: one `IN` fetch.
    private static func existingSourceIDs(
        _ ids: [String], context: isolated PrivateContext
    ) throws -> [ExactText: Int64] {
        guard !ids.isEmpty else { return [:] }
        var request = FetchRequest(entityName: CatalogModel.recipe)
        request.predicate = try FetchPredicate("sourceID IN %@", ids)
        request.returnsObjectsAsFaults = false
        let recipes = try context.fetch(request)
        return Dictionary(recipes.map { (ExactText(($0 as! Recipe).sourceID), $0.objectID.key) },
                          uniquingKeysWith: { first, _ in first })
    }
}
