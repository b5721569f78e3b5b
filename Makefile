# The two commands of the README, and the extras.
#   make run    builds the shell and opens it on the bundled sample catalogue
#   make test   runs every test, then proves the exercises' checkers (a package of its own)
# Both install what they need first (Scripts/setup.sh).

SWIFT ?= swift
ARGS ?=

.PHONY: run test docs bench fuzz soak check-sanitizers setup clean

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

# The long version of the reliability suites (see README, Reliability): 200 SIGKILL trials per
# workload, 1,000,000 inputs per fuzz target (release build), the huge inputs at full size.
RELIABILITY_SUITES = KillTrialTests|AtomicKillTrialTests|MigrationKillTrialTests|MultiProcessTests|WrongFileTests|InjectionTests|HugePredicateTests|StoreFileTests|IntegrityCheckTests|MigrationCrashSafetyTests
soak: setup
	@bash Scripts/setup.sh test
	PREDICATE_FUZZ_COUNT=1000000 JSONL_FUZZ_COUNT=1000000 ATOMIC_FUZZ_COUNT=1000000 \
	  $(SWIFT) test -c release -Xswiftc -enable-testing --filter 'PredicateFuzzTests|RecipeLineFuzzTests|AtomicReaderFuzzTests'
	$(SWIFT) build --build-tests
	RELIABILITY_SOAK=1 RELIABILITY_KILL_TRIALS=200 $(SWIFT) test --skip-build --filter '$(RELIABILITY_SUITES)'
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
