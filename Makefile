# Tripto box — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build release deps test-deps format lint clean

run: deps build
	@$(SWIFT) run tripto pack validate packs/*
	@echo
	@echo "The game core and the packs are ready. The server (tripto serve) arrives with the next"
	@echo "issue; until then there is nothing to open in a browser."

test: test-deps
	@scripts/run-tests

build:
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

deps:
	@scripts/install-deps build

test-deps:
	@scripts/install-deps test

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build
