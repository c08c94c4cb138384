# NavHost build glue. The two commands a newcomer needs:
#   make run    install what is missing, build what it runs (no test), start navhostd with the bundled plugins
#   make test   install what is missing, build once, lint, run the whole test suite
# and for feature authors:
#   make new-feature NAME=Orders   scaffold Plugins/Orders, a feature that builds, passes its tests and loads
#   make test-scaffold             scaffold a feature into a copy of the package, build it, test it, load it

SWIFT        ?= swift
CONFIG       ?= debug
BUILD_DIR    := .build/$(CONFIG)
# Package.swift lists Plugins/*/plugin.json when SwiftPM evaluates it, but SwiftPM caches that evaluation by the
# file's text: without this flag a new plugin folder stays invisible until Package.swift itself changes (`make run`
# keys the cache by the plugin folders instead: build-run).
SWIFT_FLAGS  := -c $(CONFIG) --manifest-cache none
PLUGIN_DIRS  := $(patsubst %/plugin.json,%,$(wildcard Plugins/*/plugin.json))
PLUGIN_TOOL  := $(BUILD_DIR)/navhost-plugin-tool

# Installation (`make install`, DESTDIR and PREFIX honoured). The binaries live in PKGLIBDIR beside
# libNavHostKit.so, which they find through their $$ORIGIN run path; BINDIR gets symlinks. See docs/systemd.md.
PREFIX       ?= /usr
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
PKGLIBDIR    ?= $(PREFIX)/lib/navhost
PLUGINDIR    ?= $(PKGLIBDIR)/plugins
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR  ?= $(PREFIX)/lib/tmpfiles.d
DOCDIR       ?= $(PREFIX)/share/doc/navhost
MANDIR       ?= $(PREFIX)/share/man
# Shell completion scripts, where each shell's Debian package looks for them (scripts/generate-completions.sh); Debian's
# zsh reads vendor-completions only under /usr, and site-functions under /usr/local.
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR  ?= $(PREFIX)/share/fish/vendor_completions.d
SYSCONFDIR   ?= /etc
# The SDK for plugins built outside this repository (docs/sdk.md): the libraries and navhost-plugin-tool live in
# PKGLIBDIR, the module interfaces in SDK_MODULEDIR, one <Module>.swiftmodule/<triple>.* folder per module.
SDK_MODULEDIR ?= $(PKGLIBDIR)/swift
# A folder with a space would be split into two words by the recipes below, and half of it created in the current
# folder: such a path is refused before anything runs.
INSTALL_PATHS := DESTDIR PREFIX BINDIR PKGLIBDIR PLUGINDIR UNITDIR SYSUSERSDIR TMPFILESDIR DOCDIR MANDIR SYSCONFDIR \
	SDK_MODULEDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR
$(foreach path,$(INSTALL_PATHS),$(if $(word 2,$($(path))),\
	$(error $(path)="$($(path))" holds a space, which make cannot install to; choose a folder without one)))
SDK_MODULES  := NavHostKit NavHostJSON NavHostTesting
# The documents are installed into DOCDIR at the paths they have here, so the links between them hold once installed
# as they do in the repository (scripts/check-doc-links.py checks both): the SDK's with the SDK, the rest with the
# daemon.
SDK_DOCS     := docs/sdk.md docs/authoring-features.md docs/manifest.md docs/plugins-reload.md docs/durability.md \
                NavHostKit/CHANGELOG.md
DOCS         := README.md BENCHMARKS.md $(filter-out $(SDK_DOCS),$(wildcard docs/*.md))
SDK_TRIPLE   := $(shell uname -m)-unknown-linux-gnu

# What `make install` and `make deb` ship, built in release product by product (as `make bench` does: a plain
# `swift build -c release` would build the tests' fixtures and the benchmark too), into RELEASE_DIR. The man pages
# are generated into <build dir>/man/ from the programs' help texts (scripts/generate-man.sh). `make deb` packages
# DEB_BUILD_DIR, the release build; `make deb-files DEB_BUILD_DIR=.build/debug` packages the debug build `make build`
# made, building nothing else (`make systemd-e2e` does that). docs/packaging.md has the packages and their layout.
RELEASE_DIR      := .build/release
RELEASE_PRODUCTS := navhostd navctl navhost-plugin-tool NavHostTesting $(patsubst Plugins/%,%Feature,$(PLUGIN_DIRS))
DEB_BUILD_DIR    ?= $(RELEASE_DIR)
DEB_DIR          ?= $(DEB_BUILD_DIR)/deb
DEB_COMPRESSION  ?= xz

# Fuzzing (docs/fuzzing.md): libFuzzer over the daemon's Varlink front door, built with AddressSanitizer, which
# brings LeakSanitizer (libFuzzer alone detects no leaks). LeakSanitizer checks the whole process when the run ends
# and fails it on a leak; libFuzzer's own check after every input is off (-detect_leaks=0), because an input's
# asynchronous work ends slightly after the input and that check would then rescan memory for nearly every input.
# New corpus entries and crash files stay in FUZZ_DIR.
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 45
FUZZ_MAX_LEN       ?= 16384
FUZZ_DIR           := .build-fuzz
FUZZ_BINARY        := $(FUZZ_DIR)/debug/navhost-fuzz
FUZZ_SEEDS         := Tests/Fuzz/Corpus
FUZZ_FLAGS          = -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) -timeout=10 -rss_limit_mb=2048 \
                      -detect_leaks=0 -dict=Tests/Fuzz/varlink.dict -artifact_prefix=$(FUZZ_DIR)/artifacts/ \
                      -print_final_stats=1

.PHONY: all deps build build-run run test test-soak test-scaffold new-feature lint format clean install install-files \
	install-sdk sdk install-sdk-files install-docs install-sdk-docs uninstall uninstall-sdk-files check-docs release man completions install-completions uninstall-completions deb deb-files test-out-of-tree sdk-api-check test-sdk-compat systemd-e2e journald-check bench bench-smoke go-peer
.PHONY: fuzz fuzz-build fuzz-smoke

all: build

deps:
	@scripts/install-deps.sh

# One build for everything (daemon, plugins, tools, tests), then each plugin is staged where the daemon loads it:
# $(BUILD_DIR)/plugins/<Name>/{manifest.json, lib<Name>Feature.so, resources}. Built and staged under a umask of 022
# (as build-run): navhostd refuses a plugin whose folders, .build's among them, its group or others may write.
build: deps
	@python3 scripts/embed-interfaces.py
	umask 022 && $(SWIFT) build $(SWIFT_FLAGS) --build-tests
	umask 022 && $(PLUGIN_TOOL) stage --build-dir $(BUILD_DIR) $(PLUGIN_DIRS)

# What `make run` runs, and only that, product by product: the daemon, navctl to drive it, the plugin tool that stages
# the plugins, and the plugins, staged as `make build` stages them; no test, no fixture. Each `swift build` evaluates
# Package.swift and every dependency's manifest again, 13 to 23 s on two busy cores without a cache, seven times over:
# so these use SwiftPM's manifest cache (2 s), which is keyed by the environment too. RUN_PLUGIN_DIRS, the plugin
# folders, puts the set of plugins in the key, as --manifest-cache none (SWIFT_FLAGS) guards it elsewhere: a new
# plugin folder is seen at once. make's own variables are left out of the key (`make run RUN_ARGS=…` would miss the
# cache once per new value); another shell environment (a new PATH) misses it once.
RUN_PRODUCTS := navhostd navctl navhost-plugin-tool $(patsubst Plugins/%,%Feature,$(PLUGIN_DIRS))

build-run: deps
	@python3 scripts/embed-interfaces.py
	@umask 022; for product in $(RUN_PRODUCTS); do \
		echo "swift build -c $(CONFIG) --product $$product"; \
		env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS -u MAKELEVEL RUN_PLUGIN_DIRS="$(PLUGIN_DIRS)" \
			$(SWIFT) build -c $(CONFIG) --product $$product || exit 1; \
	done
	umask 022 && $(PLUGIN_TOOL) stage --build-dir $(BUILD_DIR) $(PLUGIN_DIRS)

# The daemon with the staged example plugins; its state stays in the build folder, its socket is the default one
# (`$$XDG_RUNTIME_DIR/navhost/io.navhost`, or `/run/navhost/io.navhost` for root), where navctl looks. RUN_ARGS adds
# options, such as RUN_ARGS="--socket /tmp/mine.sock" for a socket of one's own (navctl: NAVHOST_SOCKET), or
# RUN_ARGS="--state-dir /tmp/mine" for a state folder of one's own (the last --state-dir given wins).
RUN_ARGS ?=
run: build-run
	$(BUILD_DIR)/navhostd --plugins $(BUILD_DIR)/plugins --state-dir $(CURDIR)/.build/state $(RUN_ARGS)

lint: check-docs
	$(SWIFT) format lint --strict --recursive --parallel Package.swift NavHostKit Sources Tests Plugins

# Every relative link and #anchor in the repository's Markdown leads somewhere, and so does every link between the
# documents as `make install-docs` lays them out, and as `make install-sdk-docs` does for the SDK alone.
check-docs:
	python3 scripts/check-doc-links.py
	rm -rf $(BUILD_DIR)/doc-check && $(MAKE) --no-print-directory install-docs DESTDIR=$(CURDIR)/$(BUILD_DIR)/doc-check >/dev/null
	python3 scripts/check-doc-links.py --installed $(BUILD_DIR)/doc-check$(DOCDIR) --not-installed Benchmarks
	rm -rf $(BUILD_DIR)/sdk-doc-check && $(MAKE) --no-print-directory install-sdk-docs DESTDIR=$(CURDIR)/$(BUILD_DIR)/sdk-doc-check >/dev/null
	python3 scripts/check-doc-links.py --installed $(BUILD_DIR)/sdk-doc-check$(DOCDIR) --not-installed Benchmarks

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift NavHostKit Sources Tests Plugins Benchmarks

# Tests run in parallel, TEST_WIDTH at a time. The stall that once kept them serial was a deadlock in the tests
# (Tests/IntegrationHarness/SpawnedProcess.swift says which). Unbounded, every parameterized case starts at once (70 in-process
# hosts for the fuzz corpus alone) and two cores cannot meet the time limits that catch a hang; three at a time
# finished the suite in about 55 s, against 65 to 110 s one at a time, when it was a third of its size.
# TEST_FILTER runs only the tests it matches (swift test --filter): `make test TEST_FILTER=OrdersFeatureTests`.
# The daemons the tests start keep their logs and state folders under one temporary folder of the run's (TMPDIR),
# removed when every test passed and kept, with its path said, when one failed: a full run leaves about 700 of them,
# which filled /tmp on a machine that runs the suite all day. Open to all (755): some tests run navctl as `nobody`.
TEST_WIDTH ?= 3
TEST_FILTER ?=
# The whole suite's time limit, in seconds: it takes about 3.5 minutes on two cores. A test that waits for ever (a
# lost wake-up once made one wait for an intent time-out that never came, session 60) ends the run with a message
# instead of holding it with no CPU used.
TEST_TIME_LIMIT ?= 1200
test: build lint
	@run=$$(mktemp -d /tmp/navhost-tests.XXXXXX) && chmod 755 "$$run" || exit 1; \
	NAVHOST_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) TMPDIR=$$run timeout --kill-after=30 $(TEST_TIME_LIMIT) \
		$(SWIFT) test $(SWIFT_FLAGS) --skip-build --parallel \
		--experimental-maximum-parallelization-width $(TEST_WIDTH) $(if $(TEST_FILTER),--filter '$(TEST_FILTER)'); \
	status=$$?; \
	if [ $$status -eq 124 ]; then echo "make test: the suite did not end within $(TEST_TIME_LIMIT) s: a test waits for" \
		"what never comes (the tests started and not finished, in the output above, name it)" >&2; fi; \
	if [ $$status -eq 0 ]; then rm -rf "$$run"; \
	else echo "make test: the test daemons' logs and state folders are kept in $$run" >&2; fi; \
	exit $$status

# The full-size memory test of docs/robustness.md: a Watch that never reads while another client drives 100,000 state
# changes (about a minute in a debug build on 2 cores: 56 to 108 s in 20 CI runs; `make test` runs the same test with
# 10,000).
test-soak: build
	NAVHOST_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) NAVHOST_SOAK_CHANGES=100000 \
		$(SWIFT) test $(SWIFT_FLAGS) --skip-build --filter watcherThatNeverReads

# Builds navhost-fuzz in its own scratch folder: the sanitizers instrument every module, so nothing is shared with
# .build. Incremental after the first build. The sanitizers go in one -sanitize= flag: swiftc honours only the last
# of several, and `swift build --sanitize=fuzzer --sanitize=address` passes two, in an order that changes from one
# run to the next (a full rebuild each time, and no coverage instrumentation when address comes last).
fuzz-build: deps
	$(SWIFT) build -c debug --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address --product navhost-fuzz --scratch-path $(FUZZ_DIR)

# Fuzzes for FUZZ_SECONDS. The seeds in Tests/Fuzz/Corpus are read; what the fuzzer adds goes to $(FUZZ_DIR)/corpus.
# Fails on a crash, a wrong reply, a hang (the input is written to $(FUZZ_DIR)/artifacts/) or a leak (reported with
# the allocation's stack when the run ends).
fuzz: fuzz-build
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 $(FUZZ_BINARY) $(FUZZ_FLAGS) $(FUZZ_DIR)/corpus $(FUZZ_SEEDS)

# A short run, for CI.
fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

# Benchmarks (BENCHMARKS.md). `make bench` builds navhostd, the example plugins and navhost-bench in release and runs
# the full benchmark against the C floor in ../shared/bench (results in bench-results.json); `make bench-smoke` runs it
# with small counts on the debug build `make build` made, to show that every measurement works, not how fast (CI).
# BENCH_FLAGS passes more options, such as --skip-one-core or --only round-trip.
BENCH_PRODUCTS := navhostd navhost-bench navhost-plugin-tool $(patsubst Plugins/%,%Feature,$(PLUGIN_DIRS))
BENCH_FLAGS    ?=

bench: deps
	@python3 scripts/embed-interfaces.py
	for product in $(BENCH_PRODUCTS); do \
		$(SWIFT) build -c release --manifest-cache none --product $$product || exit 1; \
	done
	$(MAKE) --no-print-directory go-peer GO_PEER_DIR=.build/release
	.build/release/navhost-plugin-tool stage --build-dir .build/release $(PLUGIN_DIRS)
	.build/release/navhost-bench --output bench-results.json --markdown .build/release/bench-results.md $(BENCH_FLAGS)

bench-smoke: build
	$(SWIFT) format lint --strict --recursive --parallel Benchmarks
	$(MAKE) --no-print-directory go-peer
	$(BUILD_DIR)/navhost-bench --quick --output $(BUILD_DIR)/bench-smoke.json $(BENCH_FLAGS)

# The Go peer of navhost-bench (Benchmarks/Peer/go) on Debian's github.com/varlink/go, built in GOPATH mode from
# /usr/share/gocode (scripts/install-deps.sh installs golang-go and golang-github-varlink-go-dev); gofmt must leave it
# as it is.
GO_PEER_DIR ?= $(BUILD_DIR)
go-peer:
	@unformatted=$$(gofmt -l Benchmarks/Peer/go); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted" >&2; exit 1; fi
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$(CURDIR)/.build/go-cache go build -o $(GO_PEER_DIR)/navhost-peer-go ./Benchmarks/Peer/go

# `make install` installs the release build, with the man pages and the shell completions; `make install-files
# BUILD_DIR=…` installs what a given build holds and builds nothing.
install: release
	scripts/generate-man.sh $(RELEASE_DIR)
	scripts/generate-completions.sh $(RELEASE_DIR)
	$(MAKE) --no-print-directory install-files BUILD_DIR=$(RELEASE_DIR)

release: deps
	@python3 scripts/embed-interfaces.py
	for product in $(RELEASE_PRODUCTS); do \
		$(SWIFT) build -c release --manifest-cache none --product $$product || exit 1; \
	done
	$(RELEASE_DIR)/navhost-plugin-tool stage --build-dir $(RELEASE_DIR) $(PLUGIN_DIRS)

# navhostd(8), navctl(1), navhost-plugin-tool(1) and navhostd.conf(5) for $(BUILD_DIR), into $(BUILD_DIR)/man/.
man: build
	scripts/generate-man.sh $(BUILD_DIR)

# navctl's and navhost-plugin-tool's completion scripts for bash, zsh and fish, into $(BUILD_DIR)/completions/.
completions: build
	scripts/generate-completions.sh $(BUILD_DIR)

# navhost_<version>_<arch>.deb and navhost-sdk_<version>_<arch>.deb in $(DEB_DIR), with dpkg-deb (scripts/build-deb.sh).
deb: release
	$(MAKE) --no-print-directory deb-files DEB_BUILD_DIR=$(RELEASE_DIR)

deb-files:
	scripts/generate-man.sh $(DEB_BUILD_DIR)
	scripts/generate-completions.sh $(DEB_BUILD_DIR)
	DEB_COMPRESSION=$(DEB_COMPRESSION) scripts/build-deb.sh $(DEB_BUILD_DIR) $(DEB_DIR)

# The SDK alone, for plugin authors: libNavHostKit.so, the test kit libNavHostTesting.so, navhost-plugin-tool (with
# its man page and shell completions) and the module interfaces. install-sdk builds those products alone (sdk), with
# only the packages their build needs (no test tools, no browser): a few minutes, where make build builds the daemon,
# the inspector and every test too; install-sdk-files copies what a build produced and builds nothing.
install-sdk: sdk install-sdk-files

sdk:
	@scripts/install-deps.sh --sdk
	@python3 scripts/embed-interfaces.py
	for product in NavHostTesting navhost-plugin-tool; do \
		$(SWIFT) build $(SWIFT_FLAGS) --product $$product || exit 1; \
	done
	scripts/generate-man.sh $(BUILD_DIR)
	scripts/generate-completions.sh $(BUILD_DIR)

# On a machine with the navhost package, the files in PKGLIBDIR are dpkg's, and its daemon loads its
# libNavHostKit.so: installing this build's over them (install-sdk-files, and make install through it) would replace
# them, and uninstalling would delete them. Both refuse, unless DESTDIR installs into another tree.
REFUSE_PACKAGED = @if [ -z "$(DESTDIR)" ] && command -v dpkg-query >/dev/null 2>&1 \
	&& owner=$$(dpkg-query -S $(PKGLIBDIR)/libNavHostKit.so 2>/dev/null); then \
	echo "make $@: $(PKGLIBDIR)/libNavHostKit.so belongs to the $${owner%%:*} package, whose navhostd loads it;" \
		"this build installs elsewhere (PREFIX=/usr/local, or PREFIX=$$HOME/.local), the SDK of the package comes" \
		"with navhost-sdk, and apt removes the package" >&2; exit 1; fi

install-sdk-files:
	$(REFUSE_PACKAGED)
	@test -f $(BUILD_DIR)/libNavHostTesting.so || { echo "install: $(BUILD_DIR) has no SDK; run make sdk" >&2; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 $(BUILD_DIR)/libNavHostKit.so $(BUILD_DIR)/libNavHostTesting.so $(DESTDIR)$(PKGLIBDIR)/
	install -m 0755 $(BUILD_DIR)/navhost-plugin-tool $(DESTDIR)$(PKGLIBDIR)/
	ln -sfr $(DESTDIR)$(PKGLIBDIR)/navhost-plugin-tool $(DESTDIR)$(BINDIR)/navhost-plugin-tool
	for module in $(SDK_MODULES); do \
		install -d $(DESTDIR)$(SDK_MODULEDIR)/$$module.swiftmodule && \
		for kind in swiftinterface swiftmodule swiftdoc; do \
			install -m 0644 $(BUILD_DIR)/Modules/$$module.$$kind \
				$(DESTDIR)$(SDK_MODULEDIR)/$$module.swiftmodule/$(SDK_TRIPLE).$$kind || exit 1; \
		done; \
	done
	if [ -f $(BUILD_DIR)/man/navhost-plugin-tool.1 ]; then \
		install -d $(DESTDIR)$(MANDIR)/man1 && \
		gzip -9nc $(BUILD_DIR)/man/navhost-plugin-tool.1 >$(DESTDIR)$(MANDIR)/man1/navhost-plugin-tool.1.gz; \
	fi
	$(MAKE) --no-print-directory install-completions COMPLETED=navhost-plugin-tool
	$(MAKE) --no-print-directory install-sdk-docs

# The completion scripts of the program $(COMPLETED) that $(BUILD_DIR)/completions/ holds (`make completions`), if
# any; not when they are older than the program, whose arguments they may no longer match (a mismatched script
# prints ArgumentParser's errors into the command line at every Tab).
install-completions:
	@test -n "$(COMPLETED)" || { echo "usage: make install-completions COMPLETED=navctl" >&2; exit 2; }
	if [ -f $(BUILD_DIR)/completions/bash/$(COMPLETED) ]; then \
		if [ $(BUILD_DIR)/$(COMPLETED) -nt $(BUILD_DIR)/completions/bash/$(COMPLETED) ]; then \
			echo "install: skips $(COMPLETED)'s completions: older than $(BUILD_DIR)/$(COMPLETED);" \
				"run scripts/generate-completions.sh $(BUILD_DIR)" >&2; \
		else \
			install -D -m 0644 $(BUILD_DIR)/completions/bash/$(COMPLETED) $(DESTDIR)$(BASHCOMPDIR)/$(COMPLETED) && \
			install -D -m 0644 $(BUILD_DIR)/completions/zsh/_$(COMPLETED) $(DESTDIR)$(ZSHCOMPDIR)/_$(COMPLETED) && \
			install -D -m 0644 $(BUILD_DIR)/completions/fish/$(COMPLETED).fish \
				$(DESTDIR)$(FISHCOMPDIR)/$(COMPLETED).fish; \
		fi; \
	fi

uninstall-completions:
	@test -n "$(COMPLETED)" || { echo "usage: make uninstall-completions COMPLETED=navctl" >&2; exit 2; }
	rm -f $(DESTDIR)$(BASHCOMPDIR)/$(COMPLETED) $(DESTDIR)$(ZSHCOMPDIR)/_$(COMPLETED) \
		$(DESTDIR)$(FISHCOMPDIR)/$(COMPLETED).fish

install-sdk-docs:
	for doc in $(SDK_DOCS); do install -D -m 0644 $$doc $(DESTDIR)$(DOCDIR)/$$doc || exit 1; done

install-docs: install-sdk-docs
	for doc in $(DOCS); do install -D -m 0644 $$doc $(DESTDIR)$(DOCDIR)/$$doc || exit 1; done

# What install-sdk-files installed, file by file, with the folders it leaves empty: for a feature author's machine.
# The daemon needs libNavHostKit.so too: after `make install`, `make uninstall` removes both.
uninstall-sdk-files:
	$(REFUSE_PACKAGED)
	rm -f $(DESTDIR)$(PKGLIBDIR)/libNavHostKit.so $(DESTDIR)$(PKGLIBDIR)/libNavHostTesting.so \
		$(DESTDIR)$(PKGLIBDIR)/navhost-plugin-tool $(DESTDIR)$(BINDIR)/navhost-plugin-tool \
		$(DESTDIR)$(MANDIR)/man1/navhost-plugin-tool.1.gz
	$(MAKE) --no-print-directory uninstall-completions COMPLETED=navhost-plugin-tool
	for module in $(SDK_MODULES); do \
		for kind in swiftinterface swiftmodule swiftdoc; do \
			rm -f $(DESTDIR)$(SDK_MODULEDIR)/$$module.swiftmodule/$(SDK_TRIPLE).$$kind; \
		done; \
		rmdir $(DESTDIR)$(SDK_MODULEDIR)/$$module.swiftmodule 2>/dev/null || true; \
	done
	for doc in $(SDK_DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$$doc; done
	-rmdir $(DESTDIR)$(SDK_MODULEDIR) $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/NavHostKit $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(PKGLIBDIR) 2>/dev/null

# What install-files installed: the programs, the plugins it copied (those listed in PKGLIBDIR/installed-plugins
# whose manifest is still the one installed: a plugin put in their place since, and every other plugin in PLUGINDIR,
# stay), the units, the documents, the man pages and the SDK. The configuration in SYSCONFDIR and the state folder
# stay, as a package's removal leaves them.
uninstall:
	$(REFUSE_PACKAGED)
	for program in navhostd navctl; do rm -f $(DESTDIR)$(PKGLIBDIR)/$$program $(DESTDIR)$(BINDIR)/$$program; done
	list="$(DESTDIR)$(PKGLIBDIR)/installed-plugins"; \
	if [ -f "$$list" ]; then \
		while read -r digest folder; do \
			manifest="$(DESTDIR)$$folder/manifest.json"; \
			if [ ! -e "$$manifest" ]; then continue; fi; \
			if [ "$$(sha256sum < "$$manifest" | cut -d' ' -f1)" = "$$digest" ]; then \
				rm -rf "$(DESTDIR)$$folder"; rmdir "$$(dirname "$(DESTDIR)$$folder")" 2>/dev/null || true; \
			else \
				echo "uninstall: keeps $(DESTDIR)$$folder: it is not the plugin make install put there"; \
			fi; \
		done < "$$list"; \
		rm -f "$$list"; \
	else \
		echo "uninstall: no $$list (an install by an earlier NavHost, or none): the plugins in $(DESTDIR)$(PLUGINDIR) stay"; \
	fi
	rm -f $(DESTDIR)$(UNITDIR)/navhostd.service $(DESTDIR)$(UNITDIR)/navhostd.socket \
		$(DESTDIR)$(SYSUSERSDIR)/navhost.conf $(DESTDIR)$(TMPFILESDIR)/navhost.conf
	for doc in $(DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$$doc; done
	rm -f $(DESTDIR)$(MANDIR)/man8/navhostd.8.gz $(DESTDIR)$(MANDIR)/man1/navctl.1.gz \
		$(DESTDIR)$(MANDIR)/man5/navhostd.conf.5.gz
	$(MAKE) --no-print-directory uninstall-completions COMPLETED=navctl
	-rmdir $(DESTDIR)$(PLUGINDIR) 2>/dev/null
	$(MAKE) --no-print-directory uninstall-sdk-files

# An out-of-tree plugin from scratch: the SDK installed into a temporary DESTDIR, a plugin package scaffolded outside
# the repository, built, tested and staged there, then hot-loaded into a running daemon and driven over its socket.
test-out-of-tree: build
	BUILD_DIR=$(BUILD_DIR) scripts/test-out-of-tree.sh

# NavHostKit's API and ABI against its last release, and a plugin built against each earlier release's SDK (of the
# major version) loaded into this daemon (docs/sdk.md, "How it is checked").
sdk-api-check: deps
	scripts/check-sdk-api.sh

test-sdk-compat: build
	BUILD_DIR=$(BUILD_DIR) scripts/test-sdk-compat.sh

# Copies what the build produced; builds nothing. The units name /usr/bin and /usr/lib/navhost: other prefixes are
# written into the installed copies. The man pages, navhostd.conf(5) among them, are installed when $(BUILD_DIR)/man/
# holds them (`make man`); the example configuration systemd/navhostd.conf and docs/configuration.md when the tree has
# them, the configuration into $(SYSCONFDIR)/navhost/ unless a copy is already there: an edited configuration is
# never overwritten.
install-files: install-sdk-files
	@test -x $(BUILD_DIR)/navhostd || { echo "install: $(BUILD_DIR)/navhostd is missing; run make build" >&2; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DOCDIR)
	for program in navhostd navctl; do \
		if [ -x $(BUILD_DIR)/$$program ]; then \
			install -m 0755 $(BUILD_DIR)/$$program $(DESTDIR)$(PKGLIBDIR)/ && \
			ln -sfr $(DESTDIR)$(PKGLIBDIR)/$$program $(DESTDIR)$(BINDIR)/$$program; \
		fi; \
	done
	if [ -d $(BUILD_DIR)/plugins ]; then cp -R $(BUILD_DIR)/plugins/. $(DESTDIR)$(PLUGINDIR)/; fi
	@# Each plugin installed, by the SHA-256 of its manifest (which holds its library's) and its folder (under
	@# DESTDIR): `make uninstall` removes those alone, and only while they are still the ones installed.
	list="$(DESTDIR)$(PKGLIBDIR)/installed-plugins"; \
	for manifest in $(BUILD_DIR)/plugins/*/manifest.json; do \
		[ -f "$$manifest" ] || continue; \
		digest=$$(sha256sum < "$$manifest" | cut -d' ' -f1); [ -n "$$digest" ] || exit 1; \
		echo "$$digest $(PLUGINDIR)/$$(basename "$$(dirname "$$manifest")")"; \
	done > "$$list.new" || exit 1; \
	if [ -f "$$list" ]; then cat "$$list" >> "$$list.new"; fi; \
	awk '!seen[$$2]++' "$$list.new" > "$$list" && rm -f "$$list.new"
	for unit in systemd/navhostd.service systemd/navhostd.socket; do \
		sed -e 's|/usr/bin/|$(BINDIR)/|g' -e 's|/usr/lib/navhost/plugins|$(PLUGINDIR)|g' \
			-e 's|/usr/share/doc/navhost|$(DOCDIR)|g' $$unit \
			> $(DESTDIR)$(UNITDIR)/$$(basename $$unit) && chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$unit); \
	done
	install -m 0644 systemd/sysusers.d/navhost.conf $(DESTDIR)$(SYSUSERSDIR)/navhost.conf
	install -m 0644 systemd/tmpfiles.d/navhost.conf $(DESTDIR)$(TMPFILESDIR)/navhost.conf
	$(MAKE) --no-print-directory install-docs
	for page in navhostd.8 navctl.1 navhostd.conf.5; do \
		if [ -f $(BUILD_DIR)/man/$$page ]; then \
			install -d $(DESTDIR)$(MANDIR)/man$${page##*.} && \
			gzip -9nc $(BUILD_DIR)/man/$$page >$(DESTDIR)$(MANDIR)/man$${page##*.}/$$page.gz || exit 1; \
		fi; \
	done
	$(MAKE) --no-print-directory install-completions COMPLETED=navctl
	if [ -f systemd/navhostd.conf ] && [ ! -e $(DESTDIR)$(SYSCONFDIR)/navhost/navhostd.conf ]; then \
		install -d $(DESTDIR)$(SYSCONFDIR)/navhost && \
		install -m 0644 systemd/navhostd.conf $(DESTDIR)$(SYSCONFDIR)/navhost/navhostd.conf; \
	fi

# The units under a real systemd in a systemd-nspawn container (root; Debian's mirror on first run), installed from
# the Debian packages of $(BUILD_DIR) (the debug build in CI: no release build; zstd, not xz, which takes most of a
# minute over a debug build) with dpkg -i, purged at the end.
systemd-e2e: build
	$(MAKE) --no-print-directory deb-files DEB_BUILD_DIR=$(BUILD_DIR) DEB_COMPRESSION=zstd
	BUILD_DIR=$(BUILD_DIR) DEB_DIR=$(BUILD_DIR)/deb scripts/systemd-e2e.sh

# The journald handler against a real systemd-journald in a private mount namespace (root). See the script.
journald-check: build
	BUILD_DIR=$(BUILD_DIR) scripts/journald-check.sh

test-scaffold: build
	scripts/test-scaffold.sh $(CURDIR)/$(BUILD_DIR)

new-feature: deps
	@test -n "$(NAME)" || { echo "usage: make new-feature NAME=Orders" >&2; exit 2; }
	$(SWIFT) build $(SWIFT_FLAGS) --product navhost-plugin-tool
	$(PLUGIN_TOOL) new $(NAME)

clean:
	rm -rf .build
