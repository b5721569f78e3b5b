internal import CLibEdit
import Foundation
import Glibc
import Synchronization

/// The terminal line editor: libedit's native API with emacs keys, persistent history and
/// Tab completion. The only file that imports `CLibEdit`.
///
/// Create, use and close it on one thread: ``InputThread`` does, through the factory it
/// is given. libedit is not thread-safe, and its callbacks (prompt, Tab) run on the
/// reading thread inside `el_gets`, so they read only this object and the lock-guarded
/// ``CompletionWords`` — never main-actor state (`MainActor.assumeIsolated` traps there).
///
/// Requirements met here, each found by measuring on Linux:
/// - `setlocale(LC_ALL, "")` must have run (on the main thread, at start-up), or libedit
///   drops every non-ASCII byte ("Crème" becomes "Crme").
/// - `H_SETSIZE` must be set, or nothing is recalled.
/// - `EL_SIGNAL` stays 0: ``InterruptSignal`` forwards SIGINT to this thread so the read
///   in `el_gets` fails with `EINTR`; libedit's own handler would run on another thread.
/// - Ctrl-Z reaches the shell as SIGTSTP (libedit's edit mode keeps the terminal's signal
///   characters): ``Suspension`` puts the terminal back for the time the shell is stopped.
///
/// ```swift
/// let editor = EditLineEditor(historyPath: EditLineEditor.defaultHistoryPath(), completions: words)
/// if case .line(let text) = editor?.readLine(prompt: "recipes> ", recordsHistory: true) { … }
/// ```
final class EditLineEditor: LineEditor {
    private let editLine: OpaquePointer
    /// How many lines the history keeps, in memory and in its file.
    private static let historySize: Int32 = 1000
    private let history: OpaquePointer
    private let historyPath: String?
    private let completions: CompletionWords
    /// The C string the prompt callback returns; libedit reads it during `el_gets`.
    private var promptText: UnsafeMutablePointer<CChar>
    /// The line as it stood after a Tab that could not complete further: a second Tab on
    /// the same line lists the candidates, as in readline.
    private var lineAfterUnproductiveTab: String?
    private var isClosed = false

    /// Opens the editor on the process's terminal, loading the history file if it exists.
    ///
    /// - Parameters:
    ///   - historyPath: where the history is loaded from and saved to after every line
    ///     (its directory is created); `nil` keeps the history in memory only.
    ///   - completions: the words Tab completes.
    /// - Returns: `nil` if libedit cannot initialise (no terminal capabilities).
    init?(historyPath: String?, completions: CompletionWords) {
        guard let editLine = clibedit_init_stdio("recipes") else { return nil }
        guard let history = history_init() else {
            el_end(editLine)
            return nil
        }
        self.editLine = editLine
        self.history = history
        self.historyPath = historyPath
        self.completions = completions
        self.promptText = strdup("") ?? UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        Suspension.install()  // before libedit first changes the terminal: its settings are the shell's
        TerminationSignal.install()  // likewise: SIGTERM and SIGHUP put them back before the program ends

        _ = clibedit_history_int(history, H_SETSIZE, Self.historySize)
        _ = clibedit_history_int(history, H_SETUNIQUE, 1)
        if let historyPath {
            let directory = (historyPath as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory,
                                                     withIntermediateDirectories: true)
            _ = clibedit_history_string(history, H_LOAD, historyPath)  // none yet: ignored
        }
        _ = clibedit_set_history(editLine, history)
        _ = clibedit_set_editor(editLine, "emacs")
        _ = clibedit_set_signal(editLine, 0)
        _ = clibedit_set_client_data(editLine, Unmanaged.passUnretained(self).toOpaque())
        _ = clibedit_set_prompt(editLine, promptCallback)
        _ = clibedit_add_function(editLine, "recipes-complete", "complete the word before the cursor",
                                  completeCallback)
        _ = clibedit_bind(editLine, "^I", "recipes-complete")
        _ = el_source(editLine, nil)  // the user's ~/.editrc, if any (vi mode, bindings)
    }

    deinit { close() }

    var isInterruptible: Bool { true }

    func readLine(prompt: String, recordsHistory: Bool) -> LineEditorEvent {
        readLine(prompt: prompt, recordsHistory: recordsHistory, prefill: "")
    }

    func readLine(prompt: String, recordsHistory: Bool, prefill: String) -> LineEditorEvent {
        if !prefill.isEmpty { el_push(editLine, prefill) }  // read as if typed: shown, editable
        if let copy = strdup(prompt) {
            free(promptText)
            promptText = copy
        }
        let pressesBefore = InterruptSignal.counter.count
        var count: Int32 = 0
        Suspension.reading.store(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(editLine))), ordering: .sequentiallyConsistent)
        let read = el_gets(editLine, &count)
        Suspension.reading.store(0, ordering: .sequentiallyConsistent)
        guard let bytes = read, count > 0 else {
            if InterruptSignal.counter.count != pressesBefore {
                el_reset(editLine)  // forget the half-typed line
                write(toStandardOutput: "^C\n")
                return .interrupted
            }
            write(toStandardOutput: "\n")  // Ctrl-D: leave the cursor on a fresh line
            return .endOfInput
        }
        lineAfterUnproductiveTab = nil
        var line = String(cString: bytes)
        while line.last?.isNewline == true { line.removeLast() }
        let entry = line.trimmingCharacters(in: .whitespaces)
        if recordsHistory, !entry.isEmpty, !Self.holdsURLPassword(entry) {
            _ = clibedit_history_string(history, H_ENTER, entry)
            saveHistory(adding: entry)
        }
        return .line(line)
    }

    /// Whether `line` holds a URL with a password (`postgres://USER:PASSWORD@HOST/DB`): such a
    /// line is refused, and the history file, a plain file, must not keep the password either.
    static func holdsURLPassword(_ line: String) -> Bool {
        line.range(of: #"[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s/@]*@"#, options: .regularExpression) != nil
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        history_end(history)
        el_end(editLine)  // restores the terminal
        free(promptText)
    }

    /// `$XDG_DATA_HOME/recipes/history`, else `~/.local/share/recipes/history`.
    static func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String?
    {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/recipes/history"
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/share/recipes/history"
    }

    /// Adds `entry` to the history file: under an exclusive lock, the file is read, the entry
    /// added and the file written again, so the lines another shell saved meanwhile stay
    /// (each shell's Up arrow walks what it loaded at start and what was typed in it).
    private func saveHistory(adding entry: String) {
        guard let historyPath, let saved = history_init() else { return }
        defer { history_end(saved) }
        let descriptor = open(historyPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { Glibc.close(descriptor) }  // which releases the lock
        guard flock(descriptor, LOCK_EX) == 0 else { return }
        _ = clibedit_history_int(saved, H_SETSIZE, Self.historySize)
        _ = clibedit_history_int(saved, H_SETUNIQUE, 1)
        _ = clibedit_history_string(saved, H_LOAD, historyPath)  // a new, empty file: ignored
        _ = clibedit_history_string(saved, H_ENTER, entry)
        _ = clibedit_history_string(saved, H_SAVE, historyPath)
    }

    fileprivate var currentPrompt: UnsafeMutablePointer<CChar> { promptText }

    /// Completes the word before the cursor from ``CompletionWords``: a unique match is
    /// inserted with a trailing space (a folder with its `/`); several matches are completed
    /// to their longest common prefix, and a second Tab that cannot add anything lists them.
    /// A completion that rewrites the word (a file name that needs quotes) replaces it.
    fileprivate func complete() -> Int32 {
        guard let info = el_line(editLine)?.pointee else { return CC_ERROR }
        let typed = String(decoding: UnsafeRawBufferPointer(start: info.buffer,
                                                            count: info.cursor - info.buffer),
                           as: UTF8.self)
        let completion = completions.completion(of: typed)
        guard !completion.candidates.isEmpty else { return CC_REFRESH_BEEP }
        if let replacement = completion.replacement {
            lineAfterUnproductiveTab = nil
            el_deletestr(editLine, Int32(completion.word.unicodeScalars.count))  // libedit counts wide characters
            _ = el_insertstr(editLine, replacement)
            return CC_REFRESH
        }
        if !completion.insertion.isEmpty {
            lineAfterUnproductiveTab = nil
            _ = el_insertstr(editLine, completion.insertion)
            return CC_REFRESH
        }
        guard lineAfterUnproductiveTab == typed else {
            lineAfterUnproductiveTab = typed
            return CC_REFRESH_BEEP
        }
        write(toStandardOutput: "\n" + completion.candidates.joined(separator: "  ") + "\n")
        return CC_REDISPLAY
    }

    private func write(toStandardOutput text: String) {
        clibedit_flush_stdout()
        StandardStreams.write(text, to: STDOUT_FILENO)
    }

    fileprivate static func from(_ editLine: OpaquePointer?) -> EditLineEditor? {
        guard let editLine, let data = clibedit_client_data(editLine) else { return nil }
        return Unmanaged<EditLineEditor>.fromOpaque(data).takeUnretainedValue()
    }
}

/// `EL_PROMPT`: returns the prompt of the current read (libedit does not free it).
private let promptCallback: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>? = { editLine in
    EditLineEditor.from(editLine)?.currentPrompt
}

/// `EL_ADDFN` bound to Tab; runs on the input thread inside `el_gets`.
private let completeCallback: @convention(c) (OpaquePointer?, Int32) -> UInt8 = { editLine, _ in
    UInt8(truncatingIfNeeded: EditLineEditor.from(editLine)?.complete() ?? CC_ERROR)
}

/// Ctrl-Z (SIGTSTP): the shell stops as any program does, with the terminal in the mode it
/// found it in while it is stopped (libedit's edit mode would stay on, and the job-control
/// shell does not put it back on `fg`); once continued, the terminal gets the mode it had
/// again and, at the prompt, the prompt and the line typed so far are drawn again.
///
/// The handler runs on whichever thread the signal lands on, while the input thread is
/// blocked in `el_gets`'s `read` (or not reading at all). It calls only async-signal-safe
/// functions (`tcgetattr`, `tcsetattr`, `sigaction`, `pthread_sigmask`, `raise`), except
/// the redraw, which is what libedit's own handler does on SIGCONT (`EL_SIGNAL`, unused here
/// since its SIGINT handling would run on another thread). `SA_RESTART`: the `read` in
/// `el_gets` goes on afterwards rather than failing.
private enum Suspension {
    /// The `EditLine` reading a line now (its address), or 0.
    static let reading = Atomic<UInt>(0)
    /// The terminal's settings when the first editor opened; written once, before the handler exists.
    ///
    /// `nonisolated(unsafe)`: the pointer never changes, and its `termios` is written only
    /// in ``install()``, before the handler that reads it is installed.
    nonisolated(unsafe) static let original: UnsafeMutablePointer<termios> = .allocate(capacity: 1)
    private static let isInstalled = Atomic<Bool>(false)

    /// Records the terminal's settings and installs the handler; later calls do nothing.
    static func install() {
        guard isatty(STDIN_FILENO) == 1,
              isInstalled.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged,
              tcgetattr(STDIN_FILENO, original) == 0
        else { return }
        _ = reading.load(ordering: .sequentiallyConsistent)  // initialised outside any signal context
        setHandler()
    }

    static func setHandler() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handleSuspend
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGTSTP, &action, nil)
    }
}

/// The SIGTSTP handler (see ``Suspension``).
private let handleSuspend: @convention(c) (Int32) -> Void = { _ in
    let savedErrno = errno
    var current = termios()
    let isTerminal = tcgetattr(STDIN_FILENO, &current) == 0
    if isTerminal { tcsetattr(STDIN_FILENO, TCSADRAIN, Suspension.original) }
    // Stop now, by the default action, on this thread: the signal is unblocked here for it.
    signal(SIGTSTP, SIG_DFL)
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, nil)
    raise(SIGTSTP)
    // Continued (fg).
    Suspension.setHandler()
    if isTerminal { tcsetattr(STDIN_FILENO, TCSADRAIN, &current) }
    let address = Suspension.reading.load(ordering: .sequentiallyConsistent)
    if address != 0, let editLine = OpaquePointer(bitPattern: Int(bitPattern: address)) {
        _ = clibedit_refresh(editLine)
    }
    errno = savedErrno
}
