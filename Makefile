# The two commands of the README, and the extras.
#   make run    builds the shell and opens it on the bundled sample catalogue
#   make test   runs every test, then proves the exercises' checkers (a package of its own)
# Both install what they need first (Scripts/setup.sh).

SWIFT ?= swift
ARGS ?=

.PHONY: run test docs bench fuzz setup clean

# Build messages go to standard error, so piping commands in gives only the shell's output.
run: setup
	@$(SWIFT) build -c release --product recipes 1>&2
	@.build/release/recipes $(ARGS)

test:
	@bash Scripts/setup.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(SWIFT) build --package-path Exercises --build-tests
	$(SWIFT) test --package-path Exercises --skip-build

# The DocC catalogue as a static site in .build/docs; fails on a broken symbol link or an
# undocumented public symbol.
docs:
	@bash Scripts/setup.sh docs
	@bash Scripts/docs.sh

# Release-mode benchmarks against raw sqlite3 C calls (a separate package; never part of `make test`).
bench: setup
	cd Benchmarks && $(SWIFT) run -c release ObjectGraphBenchmarks $(ARGS)

# One million random and mutated predicate strings through the parser, checker and both back ends.
fuzz: setup
	PREDICATE_FUZZ_COUNT=1000000 $(SWIFT) test -c release -Xswiftc -enable-testing --filter PredicateFuzzTests

setup:
	@bash Scripts/setup.sh

clean:
	rm -rf .build Benchmarks/.build Exercises/.build
