# Tripto box — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test soak bench build release install deb deps test-deps voices format lint clean

run: deps build
	@$(SWIFT) run tripto pack validate packs/* >/dev/null || $(SWIFT) run tripto pack validate packs/*
	@$(MAKE) --no-print-directory voices
	$(SWIFT) run tripto serve --port $(PORT) --data-dir ./data --packs ./packs

# Voice clips for every pack, rendered when espeak-ng is installed (only missing or changed ones).
voices:
	@if command -v espeak-ng >/dev/null; then $(SWIFT) run tripto pack render-voice packs/*; \
	else echo "espeak-ng is not installed: the box will show the clues without reading them out"; fi

# Lint first: a page that does not parse fails here in seconds rather than in the browser tests.
test: test-deps
	@$(MAKE) --no-print-directory lint
	@scripts/run-tests

# The long versions of the crash campaign, the hostile-input suite and the decoder's fuzzing (about 10 minutes).
soak: test-deps
	TRIPTO_CRASH_KILLS=$${TRIPTO_CRASH_KILLS:-300} TRIPTO_FUZZ_FRAMES=$${TRIPTO_FUZZ_FRAMES:-6000} \
		$(SWIFT) test --disable-xctest --filter 'CrashCampaignTests|HostileInputTests'
	scripts/fuzz-decoder $${TRIPTO_FUZZ_SECONDS:-300}

build:
	$(SWIFT) build

# The load benchmark against a Python baseline, written to bench/results (docs/performance.md).
# BENCH_ARGS="--sessions 20 --crowd 50" for a shorter run.
bench:
	@scripts/bench $(BENCH_ARGS)

# Linked statically with the Swift runtime and Foundation (docs/performance.md, "Static release
# build linked by lld"). Product by product: a plain `swift build` also links GRDB's dynamic
# library, which cannot take a static Foundation.
release:
	@scripts/install-deps release
	$(SWIFT) build -c release --static-swift-stdlib --product tripto
	$(SWIFT) build -c release --static-swift-stdlib --product tripto-console
	$(SWIFT) build -c release --static-swift-stdlib --product tripto-bench

# A release build installed as a systemd service (see README, "Installing on a box").
install:
	@scripts/install

# dist/tripto_<version>_<arch>.deb for this machine's architecture (see README, "Installing on a box").
deb:
	@scripts/deb

deps:
	@scripts/install-deps build

test-deps:
	@scripts/install-deps test

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# The Swift sources with swift-format; the JavaScript and CSS the box serves with ESLint and
# scripts/lint-css (scripts/lint-web; both installed by `make test-deps`).
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	@scripts/lint-web

clean:
	rm -rf .build
