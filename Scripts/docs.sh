#!/usr/bin/env bash
# `make docs`: builds the ObjectGraph DocC catalogue into a static site under .build/docs,
# and fails on a broken symbol link (DocC's warnings are errors) or an undocumented public
# symbol of ObjectGraph or ObjectGraphSQLite.
set -euo pipefail
cd "$(dirname "$0")/.."

symbols=.build/docs-symbols
rm -rf "$symbols" .build/docs
mkdir -p "$symbols"
swift build --target ObjectGraphSQLite 1>&2
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

docc convert Sources/ObjectGraph/Documentation.docc \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name ObjectGraph --fallback-bundle-identifier org.objectgraph.ObjectGraph \
    --transform-for-static-hosting --warnings-as-errors \
    --output-dir .build/docs
echo "docs: .build/docs (serve it with: python3 -m http.server -d .build/docs, then open /documentation/objectgraph)"
