#!/usr/bin/env bash
# `make docs`: builds the ObjectGraph DocC catalogue into a static site under .build/docs,
# and fails on a broken symbol link (DocC's warnings are errors), an undocumented public
# symbol of ObjectGraph or ObjectGraphSQLite, or a Swift example in the README, the articles,
# the tutorials or a public symbol's doc comment that does not compile.
set -euo pipefail
cd "$(dirname "$0")/.."

symbols=.build/docs-symbols
rm -rf "$symbols" .build/docs
mkdir -p "$symbols"
# CI runs the tests first and sets DOCS_REUSE_TEST_BUILD=1: the symbols then come from the
# tests' build (already done) rather than from a second build of the framework.
if [ -n "${DOCS_REUSE_TEST_BUILD:-}" ]; then
    swift build --build-tests --traits PostgreSQL 1>&2
else
    swift build --target ObjectGraphSQLite 1>&2
fi
modules="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | jq -r .target.triple)
for module in ObjectGraph ObjectGraphSQLite; do
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules" \
        -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
        -minimum-access-level public -output-dir "$symbols"
done

# Every public or open declaration of ours carries a doc comment (synthesized members excepted).
undocumented=$(jq -r '.symbols[]
    | select(.accessLevel == "public" or .accessLevel == "open")
    | select(.identifier.precise | contains("::SYNTHESIZED::") | not)
    | select(.docComment == null)
    | "\(.location.uri // "?" | sub("^file://"; "")):\(.location.position.line // 0):\(.location.position.character // 0) \(.pathComponents | join("."))"' \
    "$symbols"/*.symbols.json | sed "s|^$PWD/||" | sort -u)
if [ -n "$undocumented" ]; then
    echo "docs: public symbols without a doc comment:" >&2
    echo "$undocumented" >&2
    exit 1
fi

# Every Swift example of the README, the articles and the tutorials type-checks against the
# modules just built: each block becomes a function of its own, with what the examples take
# as given (a model, a coordinator, a context) in Scripts/docs-examples/Prelude.swift.
# Errors name the Markdown file and line. Examples that use the PostgreSQL store are left
# out: checking them would build PostgresNIO first.
examples=.build/docs-examples
rm -rf "$examples" && mkdir -p "$examples"
awk -v out="$examples" -f Scripts/docs-examples/wrap.awk README.md Sources/ObjectGraph/Documentation.docc/*.md Tutorials/*.md
# So does every example in the doc comment of a public symbol, read from the symbol graphs
# above; a block with an ellipsis (…) in it is a sketch and is left out.
jq -r '.symbols[] | select(.docComment.uri != null) | (.docComment.uri | sub("^file://"; "")) as $file
    | .docComment.lines[] | select(.range != null) | "\($file)\t\(.range.start.line + 1)\t\(.text)"' \
    "$symbols"/*.symbols.json | sed "s|^$PWD/||" | sort -u -t "$(printf '\t')" -k1,1 -k2,2n \
    | awk -v out="$examples" -v comments=1 -f Scripts/docs-examples/wrap.awk
{ grep -l '…' "$examples"/*_swift-*.swift || true; } | xargs -r rm
{ grep -l Postgres "$examples"/*.swift || true; } | xargs -r rm
swiftc -typecheck -parse-as-library -swift-version 6 -suppress-warnings -target "$triple" -I "$modules" \
    -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
    Scripts/docs-examples/Prelude.swift "$examples"/*.swift \
    || { echo "docs: a Swift example above does not compile against the API" >&2; exit 1; }

docc convert Sources/ObjectGraph/Documentation.docc \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name ObjectGraph --fallback-bundle-identifier org.objectgraph.ObjectGraph \
    --transform-for-static-hosting --warnings-as-errors \
    --output-dir .build/docs
echo "docs: .build/docs (serve it with: python3 -m http.server -d .build/docs, then open /documentation/objectgraph)"
