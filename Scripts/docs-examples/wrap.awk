# Wraps each ```swift block of a Markdown file in a function of its own, so `swiftc -typecheck`
# checks it against the built modules (Scripts/docs.sh). Run with -v out=DIR; writes
# DIR/<file>-<line>.swift per block. Types a block declares at column 0 (struct, class, enum)
# move to file scope; `import` lines move to the top. `#sourceLocation` makes every
# diagnostic name the Markdown file and line. With -v comments=1 the input is instead
# `FILE<tab>LINE<tab>TEXT` lines: the doc comments of public symbols, from the symbol graph.
function flush(   name, f, i) {
    name = file; gsub(/[^A-Za-z0-9]/, "_", name)
    f = out "/" name "-" start ".swift"
    print "import Foundation\nimport ObjectGraphSQLite" > f
    for (i = 1; i <= nimports; i++) print imports[i] > f
    for (i = 1; i <= ntypes; i++) print types[i] > f
    print "@MainActor func example_" name "_" start "() async throws {" > f
    print "#sourceLocation(file: \"" file "\", line: " start ")" > f
    for (i = 1; i <= nbody; i++) print body[i] > f
    print "#sourceLocation()\n}" > f
    close(f)
}
comments {
    split($0, field, "\t"); sub(/^[^\t]*\t[^\t]*\t/, "")
    if (field[1] != file || field[2] + 0 != line + 1) inblock = 0
    file = field[1]; line = field[2] + 0
}
!comments { file = FILENAME; line = FNR }
/^```swift[ \t]*$/ { inblock = 1; start = line + 1; nbody = 0; ntypes = 0; nimports = 0; intype = 0; next }
inblock && /^```[ \t]*$/ { inblock = 0; flush(); next }
!inblock { next }
/^import / { imports[++nimports] = $0; body[++nbody] = ""; next }
/^(final class|class|struct|enum) / && !intype {
    intype = 1
    types[++ntypes] = "#sourceLocation(file: \"" file "\", line: " line ")"
    types[++ntypes] = "fileprivate " $0; body[++nbody] = ""
    if ($0 ~ /}[ \t]*$/) { intype = 0; types[++ntypes] = "#sourceLocation()" }  # on one line
    next
}
intype { types[++ntypes] = $0; body[++nbody] = ""; if ($0 ~ /^}/) { intype = 0; types[++ntypes] = "#sourceLocation()" }; next }
{ body[++nbody] = $0 }
