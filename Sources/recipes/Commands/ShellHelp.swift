/// The shell's help texts.
enum ShellHelp {
    /// The dot-commands, for completion and suggestions.
    static let dotCommands = [".help", ".schema", ".mode", ".width", ".timer", ".stats", ".sqldebug", ".explain",
                              ".read", ".open", ".migrate", ".echo", ".jobs", ".cancel", ".watch", ".quit", ".exit"]

    static let overview = [
        "Object commands (predicates use Core Data's format syntax):",
        "  fetch ENTITY [where PREDICATE] [sort KEY [asc|desc], ...] [limit N] [offset N]",
        "               [prefetch KEYPATH, ...] [batch N] [faults] [nosub]",
        "               [ids | keys KEYPATH, ... [distinct]]",
        "  count ENTITY [where PREDICATE]",
        "  show ENTITY/pN | show ENTITY [where PREDICATE]   one object with its relationships",
        "  insert ENTITY key=value ...                      relationships take a name: chef=\"Ana\"",
        "  update ENTITY [where PREDICATE] set key=value ... [--batch]",
        "  delete ENTITY where PREDICATE [--batch]          --batch: straight in the store, no objects",
        "  save | rollback                                  the prompt shows * while changes are unsaved",
        "  undo | redo                                      one command's unsaved changes at a time",
        "  import FILE [--batch N] [--background]           recipes (.jsonl) or the ingredient catalogue (.tsv);",
        "              [--pause MS]                         --background gives the prompt back at once",
        "  search TEXT                                      recipes by name, ignoring case and accents",
        "  demo [NAME] [--size N]                           the performance lessons, measured",
        "  refresh                                          turn every object back into a fault, breaking cycles",
        "Dot-commands:",
        "  .help [COMMAND]  .schema [ENTITY ...]  .mode table|json|csv|line  .width [auto|N|off]",
        "  .timer on|off  .stats [reset]  .sqldebug 0|1|2|3  .explain COMMAND  .read FILE",
        "  .open [--migrate] STORE [--copy-to NEW]  .migrate TYPE PATH  .echo on|off  .jobs",
        "  .cancel [N]  .watch fetch ...|off  .quit",
    ]

    /// Help for one command, or nil when there is none.
    static func detail(for topic: String) -> [String]? {
        switch topic.lowercased() {
        case "fetch": return [
            "fetch ENTITY [where PREDICATE] [sort KEY [asc|desc], ...] [limit N] [offset N]",
            "      [prefetch KEYPATH, ...] [batch N] [faults] [nosub]",
            "      [ids | keys KEYPATH, ... [distinct] [group KEYPATH, ...]]",
            "  Prints the matching objects in the current .mode; clauses come in any order.",
            "  fetch Recipe where rating >= 4.5 AND cuisine.name == 'Thai' sort rating desc, name limit 5",
            "  fetch Recipe where ANY ingredients.ingredient.name == 'butter' limit 3",
            "  fetch Recipe where name CONTAINS[cd] 'creme'",
            "  fetch Recipe limit 100 prefetch chef, cuisine   (one query per key path, not one per recipe)",
            "  fetch Recipe batch 50                          (IDs first, values 50 at a time as they are read)",
            "Fetch only what you need:",
            "  fetch Recipe where rating >= 4.5 ids           object IDs only: no objects, no values",
            "  fetch Recipe keys name, chef.name              those values only, as rows (to-one key paths too)",
            "  fetch Recipe keys cuisine.name distinct        each different row once (distinct needs keys)",
            "  fetch Recipe keys cuisine.name, @count, @avg.rating group cuisine.name",
            "                                                 a row per cuisine: @count, @count.KEY, @sum.KEY,",
            "                                                 @avg.KEY, @min.KEY, @max.KEY (no group: one row)",
            "  fetch Recipe limit 5 faults                    objects as faults: values wait until printed",
            "  fetch Recipe nosub                             the entity's own objects, not its sub-entities'",
            "  .explain shows the SQL each runs; .stats what it cost."]
        case "count": return ["count ENTITY [where PREDICATE]", "  Counts without loading objects: count Chef"]
        case "show": return ["show ENTITY/pN | show ENTITY [where PREDICATE]",
                             "  One object, its to-one relationships and the first ten of each to-many one.",
                             "  Without an ID, the first match (of every object without where); a note says",
                             "  when there are others."]
        case "insert": return ["insert ENTITY key=value ...",
                               "  insert Cuisine name=\"Georgian\"",
                               "  insert Recipe name=\"Khachapuri\" sourceID=x-1 cuisine=\"Georgian\" servings=4",
                               "  A to-one takes a name or an object ID: recipe=Recipe/p170 ingredient=\"egg\".",
                               "  Quotes group spaces and take a predicate's escapes (\\n, \\t, \\\", \\u{…}); nil clears",
                               "  a value, and a quoted \"nil\" is that text.",
                               "  Derived values (hasPhoto, ingredientCount, nameCanonical) are computed on save."]
        case "update": return ["update ENTITY [where PREDICATE] set key=value ... [--batch]",
                               "  update Recipe where sourceID == 'x-1' set rating=4.5",
                               "  Changes the objects in the context; save writes them. Every key and value is",
                               "  checked first: a command that fails changes nothing.",
                               "  With --batch, one UPDATE runs straight in the store (a batch update request):",
                               "  no objects are loaded, nothing is left to save, and the context's objects are",
                               "  refreshed. It sets attributes only (nil only to optional ones), and takes only 'where'.",
                               "  update Recipe where cuisine.name == 'Thai' set rating=5 --batch"]
        case "delete": return ["delete ENTITY where PREDICATE [--batch]",
                               "  Delete rules apply: deleting a recipe deletes its lines.",
                               "  With --batch, the rows go straight from the store (a batch delete request), the",
                               "  delete rules applied in SQL: nothing is left to save, and the context forgets them.",
                               "  delete Recipe where rating < 2 --batch"]
        case "undo", "redo": return ["undo | redo",
                                     "  undo takes back the changes of the last command that made any (values,",
                                     "  relationships, insertions, deletions); redo makes them again. Each command is",
                                     "  one step; a command that fails changes nothing and is no step. save, rollback and",
                                     "  .open clear the history: a saved change is undone by editing it back. Batch",
                                     "  requests (--batch) work in the store and are not undone; one that deletes objects",
                                     "  or changes an object the history holds clears the history too, as refresh does when",
                                     "  a step changed a saved object."]
        case "save", "rollback": return ["save writes every unsaved change in one transaction; rollback discards them."]
        case "import": return ["import FILE [--batch N] [--background] [--pause MS]",
                               "  Imports recipes in batches of N (default 1000), saving and resetting after each,",
                               "  so memory stays flat. Bad lines are listed with their line numbers; the rest is",
                               "  imported. Ctrl-C stops after the current batch; running it again resumes.",
                               "  With --background the import runs as a job and the prompt comes back at once,",
                               "  showing its progress (recipes [import 42%]> ); count and fetch see each batch as",
                               "  it is saved. .jobs lists the jobs, .cancel (or Ctrl-C at the prompt, which asks)",
                               "  stops one after its current batch. One import runs at a time. --pause MS waits",
                               "  that long after each batch: slow motion, to watch a small import as a job.",
                               "  FILE may be a pipe or FIFO, read once; /dev/stdin only with -c or -f, since",
                               "  otherwise the shell reads its commands there."]
        case "refresh": return ["refresh",
                                "  Turns every object the context holds back into a fault (refreshAllObjects()), so",
                                "  the relationships they realized let go and the cycles they formed are broken.",
                                "  Unsaved changes are kept. The undo history is cleared when a step changed a saved",
                                "  object: it reads the store again, and undo would put back old values as saved.",
                                "  Prints the registered and live objects before and after."]
        case "demo": return ["demo [NAME] [--size N]",
                             "  Runs one of the performance lessons on a catalogue it generates in a store of its",
                             "  own, and prints each way of doing the job with its time, statements and faults.",
                             "  demo alone lists them; --size N sets how many recipes it builds (10 to 1000000).",
                             "  Your catalogue is untouched: .stats and .sqldebug see none of a demo's statements.",
                             "  demo prefetch --size 200"]
        case "search": return ["search TEXT", "  search creme brulee   finds Crème Brûlée (case and accents ignored)"]
        case ".mode": return [".mode table|json|csv|line", "  json prints one object per line; count prints {\"count\": N},",
                              "  update and delete {\"updated\": N} and {\"deleted\": N}"]
        case ".width": return [".width [auto|N|off]",
                               "  How wide tables print; .width alone shows the setting. A table cuts values",
                               "  longer than 32 characters unless the width is off.",
                               "  auto  fit the terminal when standard output is one (the default); long text",
                               "        columns shrink first, and rows print as records when even that is too wide",
                               "  N     fit N columns (at least 20), terminal or not: for scripts and tests",
                               "  off   never cut a value",
                               "  json, csv and line modes always print values in full."]
        case ".sqldebug": return [".sqldebug 0|1|2|3", "  1: each statement, rows and time; 2: + bound values; 3: + query plans",
                                  "  (SQLite stores only; on PostgreSQL, .explain shows a command's SQL and plan)"]
        case ".explain": return [".explain fetch|count|show|search ...",
                                 "  The SQL the command runs, its values and the store's plan, SQLite's or PostgreSQL's",
                                 "  (for fetch … ids, keys, distinct, group and batch, the statement those run).",
                                 "  .explain update … --batch and .explain delete … where P --batch show the statement",
                                 "  that selects the rows they would change; nothing is changed."]
        case ".stats": return [".stats [reset]",
                               "  Statements, rows, faults fired, registered and live objects, peak memory, and how",
                               "  late the main actor ran a 5 ms timer (p50, p99, worst): the shell's responsiveness.",
                               "  .stats reset clears the lateness figures; the counters are cumulative."]
        case ".jobs": return [".jobs",
                              "  The background imports of this session: state, progress, recipes saved, and (without",
                              "  --deterministic) the rate and the time left or taken."]
        case ".cancel": return [".cancel [N]",
                                "  Stops the running job (or job N) after the batch it is saving, waits for that, and",
                                "  says where it stopped; the same import resumes from there."]
        case ".watch": return [".watch fetch ENTITY [where PREDICATE] [sort KEY [asc|desc], ...] [limit N] ... | .watch off",
                               "  Keeps the fetch's results live and prints each change as it happens, one line per",
                               "  object: + inserted, - deleted, ~ updated, > moved, then its ID and name:",
                               "    + Recipe/p170 Aaa Thai Test",
                               "  Changes come from saves, batch updates and deletes, and what other contexts save",
                               "  (a background import's batches): objects that start or stop matching come and go.",
                               "  Unsaved edits show at the next such change. A change during a command prints after",
                               "  its output; between commands, at once in scripts and after the next command at a",
                               "  terminal. A second .watch replaces the first; .watch alone shows what is watched.",
                               "  .watch fetch Recipe where cuisine.name == 'Thai' sort name"]
        case ".schema": return [".schema [ENTITY ...]", "  Attributes, relationships, constraints and indexes: of every entity, or of those named."]
        case ".read": return [".read FILE", "  Runs the commands in FILE; errors name FILE:LINE. A script that is already running",
                              "  (it reads itself, or through another script) is refused."]
        case ".open": return [".open [--migrate] STORE [--copy-to NEW]",
                              "  Opens another catalogue (a new path creates an empty one; :memory: for a scratch one;",
                              "  postgres://USER@HOST:PORT/DB one in a PostgreSQL database, the password from PGPASSWORD).",
                              "  A store's type (SQLite, XML, binary, HTML) is recognized from its content, whatever its name.",
                              "  --migrate migrates a catalogue made with an older version of the model first (the file is",
                              "  replaced only when the migration succeeds); --copy-to NEW migrates a copy and keeps STORE",
                              "  (NEW must be a new path: an existing file, or its -wal or -shm, is refused)."]
        case ".migrate": return [
            ".migrate TYPE PATH   TYPE: sqlite, xml, binary, html or memory (memory takes no path)",
            "  Copies every object and relationship into a new store of that type, written at exactly PATH",
            "  (which must not exist yet), and goes on working on it; the old store is left as it was.",
            "  .migrate xml catalog.xml      .migrate html catalog.html (a page a browser shows)",
        ]
        case ".timer": return [".timer on|off", "  Prints each command's run time."]
        case ".echo": return [".echo on|off", "  Prints each command, after recipes> , before its output: for scripts and transcripts."]
        case ".help": return [".help [COMMAND]", "  Lists the commands, or explains one: .help fetch, .help .mode (or .help mode)."]
        case ".quit", ".exit": return [".quit",
                                       "  Leaves the shell; asks first when a job runs (wait for it, or cancel it after its",
                                       "  current batch) and when there are unsaved changes. A script or piped input that",
                                       "  ends while a job runs waits for it, and says so; Ctrl-C then cancels it."]
        default: return nil
        }
    }
}
