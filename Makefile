# Tripto box — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build release deps test-deps format lint clean

run: deps build
	@$(SWIFT) run tripto pack validate packs/* >/dev/null || $(SWIFT) run tripto pack validate packs/*
	$(SWIFT) run tripto serve --port $(PORT) --data-dir ./data --packs ./packs

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
