/// The name and place of one exercise.
public struct ExerciseInfo: Sendable {
    /// The exercise's number, from 1.
    public var number: Int
    /// A short title: the technique it teaches.
    public var title: String
    /// The exercise's folder under `Exercises/`, for example `01-batch-save`.
    public var folder: String
    /// The starter file the learner edits, inside ``folder``.
    public var file: String

    /// The learner's file, relative to the repository: `Exercises/01-batch-save/BatchSave.swift`.
    public var path: String { "Exercises/\(folder)/\(file)" }

    /// Creates the description of an exercise.
    public init(number: Int, title: String, folder: String, file: String) {
        self.number = number
        self.title = title
        self.folder = folder
        self.file = file
    }
}
