# The two commands the README opens with, plus what CI runs. Each target first makes sure
# the system packages Logbook builds against are present (Debian/Ubuntu; needs root or sudo).

SWIFT_FLAGS := -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error

.PHONY: demo test lint deps

# The demo measures throughput, so it runs an optimized build.
demo: deps
	swift build -c release --product logbook
	.build/release/logbook demo

test: deps
	swift build --build-tests $(SWIFT_FLAGS)
	swift test --skip-build

lint:
	swift format lint --strict --recursive Sources Tests Package.swift

deps:
	@bash scripts/install-dependencies.sh
