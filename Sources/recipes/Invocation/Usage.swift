/// The text printed by `recipes --help`.
enum Usage {
    /// The usage line of `bench stacks`, also the hint of its errors.
    static let benchStacks = "recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]"

    /// The full help text, ending with a newline.
    static let text = """
        Usage:
          recipes [STORE] [--memory] [--deterministic] [--bail] [-c COMMAND]... [-f SCRIPT]...
          recipes generate --count N [--seed S] --output FILE
          \(benchStacks)
          recipes tutorial [N] [STORE]        (or: recipes --tutorial FILE.md)
          recipes exercise list | check N | hint N

        Opens the recipe catalogue in STORE (a new path makes an empty one; without STORE, the
        default catalogue, created from the sample data on first use) and starts the shell.
        With -c or -f, runs the commands and scripts in the order given, then exits; when
        standard input is not a terminal, reads commands from it without prompts.

        Options:
          STORE              the store file to open: SQLite, XML, binary or HTML, recognized by
                             its content whatever its name (.migrate converts between them);
                             or postgres://USER@HOST:PORT/DB, the password from PGPASSWORD
                             (in a build with the PostgreSQL trait)
          --memory           use an in-memory store (nothing is written to disk)
          --deterministic    reproducible output: no timings, memory figures or progress bars
          --bail             stop at the first command that fails
          --tutorial FILE    walk through the tutorial FILE (see 'tutorial' below)
          -c COMMAND         run COMMAND (repeatable)
          -f SCRIPT          run the commands in the file SCRIPT (repeatable)
          -h, --help         show this help

        generate:
          --count N          number of recipes to generate
          --seed S           random seed (default 0)
          --output FILE      where to write them

        bench stacks (the context-stack experiment: I nested, one save; II nested, periodic
        saves; III siblings, one save and merge; IV siblings, periodic saves and merges):
          --count N          objects to import per stack (default 300000)
          --plot FILE.svg    write a chart of memory over time
          --only NUMERAL     run that stack alone, in this process, and print its run as JSON
                             (what the child process of each stack does)

        tutorial: without N, lists the tutorials of the Tutorials folder ($RECIPES_TUTORIALS,
        here or above, or the checkout recipes was built from); with N (a number, or the
        start of a file name with or without its number), walks through it in an in-memory
        catalogue (or STORE): its prose a section at a time, each command put on the edit
        line, ready to run or change. An emptied line skips a command; Ctrl-D leaves; after
        the last step the shell goes on.

        exercise (the teaching exercises in Exercises/, found at $RECIPES_EXERCISES, from the
        current directory upwards, or in the checkout recipes was built from; progress in
        $XDG_DATA_HOME/recipes/exercises.json):
          list               each exercise with its state: not started, failing or passing
          check N            build exercise N and measure your file against its budgets
          hint N             the next hint of exercise N (one more each time)

        In scripts, blank lines and lines starting with '--' or '#' are comments.
        Ctrl-C stops the running command (or the generator) and keeps the shell; with
        piped input it also stops reading that input, and the run ends.
        A script or piped input that ends while a background import runs (import FILE
        --background) waits for it to finish, and says so; Ctrl-C then cancels it after
        its current batch.
        Exit status: 0 on success, 1 if any command failed or the output could not be
        written (a full disk), 2 for a usage error, 130 when Ctrl-C stopped a run.

        """
}
