# The two commands the README opens with, plus what CI runs. Each target first makes sure
# the system packages Logbook builds against are present (Debian/Ubuntu; needs root or sudo).

SWIFT_FLAGS := -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error

.PHONY: demo demo-hub test test-own-lz4 app-fixture examples lint deps bench bench-hub benchmarks benchmark-thresholds fuzz docs install

# The demo measures throughput, so it runs an optimized build.
demo: deps
	swift build -c release --product logbook
	.build/release/logbook demo

# Five nodes syncing through two hub processes on a throwaway PostgreSQL
# (scripts/demo-hub.sh; installs Debian's postgresql when missing).
demo-hub: deps
	swift build -c release --product logbook
	bash scripts/demo-hub.sh

# The hub's tests need PostgreSQL: scripts/with-postgres.sh starts a throwaway server (and
# installs Debian's postgresql when missing) unless LOGBOOK_TEST_POSTGRES_URL names one.
# The nemesis (docs/TESTING.md) runs after the suite, alone: its processes load both cores.
test: deps
	swift build --build-tests $(SWIFT_FLAGS)
	swift build --product generate-manual $(SWIFT_FLAGS)
	bash scripts/with-postgres.sh swift test --skip-build
	LOGBOOK_NEMESIS=1 bash scripts/with-postgres.sh swift test --skip-build --filter NemesisTests

# The README's app (Fixtures/app) built and run against this checkout with the `Server`
# trait off: it must fetch swift-metrics alone (scripts/app-fixture.sh).
app-fixture: deps
	bash scripts/app-fixture.sh

# The three apps under Examples/, built with the `Server` trait off and run; each checks
# what it prints (scripts/examples.sh).
examples: deps
	bash scripts/examples.sh

# The whole suite once more on the project's own LZ4 codec (LOGBOOK_LZ4=swift; what Apple
# platforms build, docs/compression.md) instead of liblz4. It rebuilds the Logbook targets
# in .build, so CI runs it last; `make test` rebuilds them with liblz4 again.
test-own-lz4: deps
	LOGBOOK_LZ4=swift swift build --build-tests $(SWIFT_FLAGS)
	LOGBOOK_LZ4=swift swift build --product generate-manual $(SWIFT_FLAGS)
	LOGBOOK_LZ4=swift bash scripts/with-postgres.sh swift test --skip-build

# Logbook next to SQLite and JSON in one run (tables; add --html report.html for charts).
bench: deps
	swift build -c release --product logbook
	.build/release/logbook bench log

# The hub's store on a throwaway PostgreSQL (scripts/with-postgres.sh): ingest, updates,
# a plain INSERT ceiling, a reader paging changes, one paging shipped batches and one
# paging the state.
bench-hub: deps
	swift build -c release --product logbook
	bash scripts/with-postgres.sh sh -c '.build/release/logbook bench hub --postgres "$$LOGBOOK_TEST_POSTGRES_URL"'

# The package-benchmark suites, run once and checked against their p90 thresholds in
# Benchmarks/Thresholds (builds GRDB in release; ~15 min cold, ~6 min warm). Exit 2: worse
# than a threshold allows; 4: better (write them again). docs/benchmarks.md#thresholds.
benchmarks: deps
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds check

# Writes the thresholds from one run on this machine (then review the diff and commit).
benchmark-thresholds: deps
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds update

# libFuzzer over the decoders and importers, LOGBOOK_FUZZ_SECONDS each (default 8).
fuzz: deps
	bash scripts/fuzz.sh

# Every library's DocC catalog, warnings as errors: a broken symbol link fails (about a minute
# after `make test`; archives in .build/plugins/Swift-DocC/outputs).
docs: deps
	bash scripts/docs.sh

# The release binary, its manual page (generated from its help by swift-argument-parser's
# generate-manual) and bash, zsh and fish completions under PREFIX (scripts/install.sh).
PREFIX ?= /usr/local
install: deps
	swift build -c release --product logbook
	swift build -c release --product generate-manual
	bash scripts/install.sh .build/release/logbook .build/release/generate-manual "$(PREFIX)"

lint:
	swift format lint --strict --recursive Sources Tests Package.swift Fuzz/Sources Fuzz/Package.swift \
		Examples/Sources Examples/Package.swift

deps:
	@bash scripts/install-dependencies.sh
