# NavHost build glue. The two commands a newcomer needs:
#   make run    install what is missing, build, start navhostd with the bundled plugins
#   make test   install what is missing, build once, lint, run the whole test suite

SWIFT        ?= swift
CONFIG       ?= debug
BUILD_DIR    := .build/$(CONFIG)
SWIFT_FLAGS  := -c $(CONFIG)

.PHONY: all deps build run test lint format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests

run: build
	$(BUILD_DIR)/navhostd

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift NavHostKit Sources Tests Plugins

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift NavHostKit Sources Tests Plugins

test: build lint
	NAVHOST_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) $(SWIFT) test $(SWIFT_FLAGS) --skip-build

clean:
	rm -rf .build
