# The two commands of the README, and the extras.
#   make run    builds the shell and opens it on the bundled sample catalogue
#   make test   runs every test, then proves the exercises' checkers (a package of its own)
#   make run-postgres   the shell on the sample catalogue in a local PostgreSQL server
# They install what they need first (Scripts/setup.sh, Scripts/postgres.sh).

SWIFT ?= swift
ARGS ?=

.PHONY: run run-postgres test docs bench fuzz soak check-sanitizers setup clean

# Build messages go to standard error, so piping commands in gives only the shell's output.
run: setup
	@$(SWIFT) build -c release --product recipes 1>&2
	@.build/release/recipes $(ARGS)

# The shell built with the PostgreSQL trait, on the database `recipes` of a local server
# (installed, started as an unprivileged user, or reused: Scripts/postgres.sh), which gets the
# sample catalogue on first use. It builds in a folder of its own: a trait is a compilation
# condition of every target, so sharing .build/release would rebuild the package's modules
# each time `make run` and `make run-postgres` take turns.
run-postgres: setup
	@eval "$$(bash Scripts/postgres.sh env)" && bash Scripts/postgres.sh database recipes >/dev/null \
	  && $(SWIFT) build -c release --product recipes --traits PostgreSQL --scratch-path .build/postgres 1>&2 \
	  && RECIPES_POSTGRES_SAMPLE=1 .build/postgres/release/recipes "$${OBJECTGRAPH_POSTGRES_URL%/*}/recipes" $(ARGS)

# The PostgreSQL tests run when Scripts/postgres.sh can start a server; otherwise they print
# why they were skipped. The exercises' package builds while the main suite runs (the suite
# mostly waits for child processes and the main actor, so a core is free). (The index store
# stays on: on Linux it is how the test build finds the XCTest cases.)
test:
	@bash Scripts/setup.sh test
	$(SWIFT) build --build-tests --traits PostgreSQL
	@mkdir -p .build && { $(SWIFT) build --package-path Exercises --build-tests > .build/exercises-build.log 2>&1 & ex=$$!; \
	  pg="$$(bash Scripts/postgres.sh env)" || { pg=; echo "PostgreSQL tests skipped: Scripts/postgres.sh could not start a server"; }; \
	  eval "$$pg"; $(SWIFT) test --skip-build --traits PostgreSQL; status=$$?; \
	  wait $$ex || { cat .build/exercises-build.log; echo "the exercises' package did not build"; exit 1; }; exit $$status; }
	$(SWIFT) test --package-path Exercises --skip-build

# The DocC catalogue as a static site in .build/docs; fails on a broken symbol link, an
# undocumented public symbol, or a Swift example of the README, articles, tutorials or doc
# comments that does not compile.
docs:
	@bash Scripts/setup.sh docs
	@bash Scripts/docs.sh

# Release-mode benchmarks against raw sqlite3 C calls (a separate package; never part of `make test`).
# POSTGRES=1 adds ObjectGraph on PostgreSQL and raw PostgresNIO, on a local server that
# Scripts/postgres.sh starts (or reuses); without it, the PostgreSQL engines run only when
# OBJECTGRAPH_POSTGRES_URL names a server, and the report says they were skipped otherwise.
POSTGRES ?=
bench: setup
	@if [ "$(POSTGRES)" = 1 ]; then pg="$$(bash Scripts/postgres.sh env)" || exit 1; eval "$$pg"; fi; \
	  cd Benchmarks && $(SWIFT) run -c release ObjectGraphBenchmarks $(ARGS)

# One million random and mutated predicate strings through the parser, checker and both back ends.
fuzz: setup
	PREDICATE_FUZZ_COUNT=1000000 $(SWIFT) test -c release -Xswiftc -enable-testing --filter PredicateFuzzTests

# The long version of the reliability suites (see README, Reliability): 200 SIGKILL trials per
# workload, 1,000,000 inputs per fuzz target (release build), the huge inputs at full size, and
# on PostgreSQL every property-test seed, the conformance table's pending variant and three
# processes on one catalogue with 100,000 imported recipes.
RELIABILITY_SUITES = KillTrialTests|AtomicKillTrialTests|MigrationKillTrialTests|MultiProcessTests|WrongFileTests|InjectionTests|HugePredicateTests|StoreFileTests|IntegrityCheckTests|MigrationCrashSafetyTests|PostgresMultiProcessTests|PredicatePropertyTests|ConformanceContextTests
soak: setup
	@bash Scripts/setup.sh test
	PREDICATE_FUZZ_COUNT=1000000 JSONL_FUZZ_COUNT=1000000 ATOMIC_FUZZ_COUNT=1000000 \
	  $(SWIFT) test -c release -Xswiftc -enable-testing --filter 'PredicateFuzzTests|RecipeLineFuzzTests|AtomicReaderFuzzTests'
	$(SWIFT) build --build-tests --traits PostgreSQL
	@pg="$$(bash Scripts/postgres.sh env)" || { pg=; echo "PostgreSQL soak skipped: Scripts/postgres.sh could not start a server"; }; \
	  eval "$$pg"; RELIABILITY_SOAK=1 RELIABILITY_KILL_TRIALS=200 $(SWIFT) test --skip-build --traits PostgreSQL --filter '$(RELIABILITY_SUITES)'
	RELIABILITY_SOAK=1 RECIPES_BINARY=$(CURDIR)/.build/release/recipes $(SWIFT) test --skip-build --filter HugeInputTests

# The whole test suite under the thread sanitizer, then the address sanitizer, each in a build
# folder of its own (the `recipes` the end-to-end tests run is instrumented too). Everything
# runs 5-20 times slower there, so the tests' hang limits stretch tenfold. Leak reports are
# off for the address sanitizer's test run (the test runner itself leaks a few hundred bytes
# at exit); a scripted session of the instrumented shell then runs with them on.
check-sanitizers: setup
	@bash Scripts/setup.sh test
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	RECIPES_TEST_TIME_SCALE=10 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS=detect_leaks=0 RECIPES_TEST_TIME_SCALE=10 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan
	@rm -rf .build/leak-check && mkdir -p .build/leak-check
	ASAN_OPTIONS=detect_leaks=1 .build/asan/debug/recipes .build/leak-check/catalog.sqlite \
	  -c "import SampleData/recipes.jsonl" -c "search curry" \
	  -c "update Recipe where name == 'Pad Thai' set rating=4" -c "undo" -c "save" \
	  -c ".migrate xml .build/leak-check/catalog.xml" -c "count Recipe" >/dev/null
	@echo "leak check: the shell's session ended with no leak reported"

setup:
	@bash Scripts/setup.sh

clean:
	rm -rf .build Benchmarks/.build Exercises/.build
