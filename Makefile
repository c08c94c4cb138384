# NavHost build glue. The two commands a newcomer needs:
#   make run    install what is missing, build, start navhostd with the bundled plugins
#   make test   install what is missing, build once, lint, run the whole test suite
# and for feature authors:
#   make new-feature NAME=Orders   scaffold Plugins/Orders, a feature that builds, passes its tests and loads
#   make test-scaffold             scaffold a feature into a copy of the package, build it, test it, load it

SWIFT        ?= swift
CONFIG       ?= debug
BUILD_DIR    := .build/$(CONFIG)
# Package.swift lists Plugins/*/plugin.json when SwiftPM evaluates it, but SwiftPM caches that evaluation by the
# file's text: without this flag a new plugin folder stays invisible until Package.swift itself changes.
SWIFT_FLAGS  := -c $(CONFIG) --manifest-cache none
PLUGIN_DIRS  := $(patsubst %/plugin.json,%,$(wildcard Plugins/*/plugin.json))
PLUGIN_TOOL  := $(BUILD_DIR)/navhost-plugin-tool

.PHONY: all deps build stage run test test-scaffold new-feature lint format clean

all: build

deps:
	@scripts/install-deps.sh

# One build for everything (daemon, plugins, tools, tests), then each plugin is staged where the daemon loads it:
# $(BUILD_DIR)/plugins/<Name>/{manifest.json, lib<Name>Feature.so, resources}.
build: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	$(PLUGIN_TOOL) stage --build-dir $(BUILD_DIR) $(PLUGIN_DIRS)

run: build
	$(BUILD_DIR)/navhostd

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift NavHostKit Sources Tests Plugins

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift NavHostKit Sources Tests Plugins

test: build lint
	NAVHOST_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) $(SWIFT) test $(SWIFT_FLAGS) --skip-build

test-scaffold: build
	scripts/test-scaffold.sh $(CURDIR)/$(BUILD_DIR)

new-feature: deps
	@test -n "$(NAME)" || { echo "usage: make new-feature NAME=Orders" >&2; exit 2; }
	$(SWIFT) build $(SWIFT_FLAGS) --product navhost-plugin-tool
	$(PLUGIN_TOOL) new $(NAME)

clean:
	rm -rf .build
