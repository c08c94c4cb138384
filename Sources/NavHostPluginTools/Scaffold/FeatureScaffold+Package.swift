// The scaffold as a package of its own, outside this repository: `navhost-plugin-tool new Orders --out-of-tree DIR`.
// The feature's files are the in-tree scaffold's; around them go a Package.swift that builds against the installed
// SDK, a Makefile (build and stage, test, install), a README, a .gitignore and swift-format's settings.
import FoundationEssentials
import NavHostCore
import NavHostStorage

extension FeatureScaffold {
    /// Every file of an out-of-tree plugin package built against the SDK installed in `sdkDirectory` (the folder
    /// holding `libNavHostKit.so` and `swift/`): the feature's files and the package's own.
    public func packageFiles(sdkDirectory: String) -> [(path: String, contents: String)] {
        files + [
            ("Package.swift", packageManifest(sdkDirectory: sdkDirectory)),
            ("Makefile", makefile(sdkDirectory: sdkDirectory)),
            ("README.md", packageReadme),
            (".gitignore", ".build/\nPackage.resolved\n"),
            (".swift-format", swiftFormatConfiguration),
        ]
    }

    /// Writes an out-of-tree plugin package into `directory`, which must not exist, be empty, or hold only `.git`
    /// (a fresh clone of an empty repository, or a folder after `git init`).
    ///
    /// - Returns: The package's folder.
    /// - Throws: ``PluginToolError`` with code `alreadyExists` when the folder holds anything else, `fileSystem`
    ///   when a write fails.
    @discardableResult
    public func write(outOfTree directory: String, sdkDirectory: String) throws(PluginToolError) -> String {
        if FileIO.kind(of: directory) != nil {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                throw PluginToolError(.alreadyExists, "\(directory) exists and is not a folder this user can read")
            }
            let others = entries.filter { $0 != ".git" }.sorted()
            guard others.isEmpty else {
                throw PluginToolError(
                    .alreadyExists,
                    "\(directory) holds \(Self.listed(others)); pick a new folder, an empty one, or a clone that "
                        + "holds only .git"
                )
            }
        }
        try write(packageFiles(sdkDirectory: sdkDirectory), into: directory)
        return directory
    }

    /// The first few of `names`, for an error: `a, b, c and 4 more`.
    private static func listed(_ names: [String]) -> String {
        let shown = names.prefix(3).joined(separator: ", ")
        return names.count > 3 ? "\(shown) and \(names.count - 3) more" : shown
    }
}

// MARK: - Package files

extension FeatureScaffold {
    func packageManifest(sdkDirectory: String) -> String {
        #"""
        // swift-tools-version:6.0
        import Foundation
        import PackageDescription

        // \#(name): a NavHost feature plugin, built against the NavHostKit SDK installed on this machine.
        //
        // The SDK is one shared library with a stable ABI, libNavHostKit.so, and its module interfaces; the feature
        // links it by path and never carries a copy of it. The tests also link the SDK's test kit, NavHostTesting.
        // NAVHOST_SDK names another SDK folder (the one holding libNavHostKit.so and swift/); SwiftPM caches this file's
        // evaluation by its text, so after changing it build once with `--manifest-cache none` (the Makefile does).
        let sdk = ProcessInfo.processInfo.environment["NAVHOST_SDK"] ?? "\#(sdkDirectory)"

        let swiftSettings: [SwiftSetting] = [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            .unsafeFlags(["-I", "\(sdk)/swift"]),
        ]

        /// Links the SDK's libraries; `runPath` for a test binary, which must find them when it runs. A plugin needs
        /// none: the daemon has loaded libNavHostKit.so before it loads the plugin.
        func sdkLinking(_ libraries: [String], runPath: Bool = false) -> [LinkerSetting] {
            let rpath = runPath ? ["-Xlinker", "-rpath", "-Xlinker", sdk] : []
            return [.unsafeFlags(["-L", sdk] + rpath)] + libraries.map { .linkedLibrary($0) }
        }

        let package = Package(
            name: "\#(name)",
            products: [
                // lib\#(name)Feature.so: the feature and its C entry point, what the daemon loads.
                .library(name: "\#(name)Feature", type: .dynamic, targets: ["\#(name)Feature", "\#(name)FeatureEntry"])
            ],
            targets: [
                .target(
                    name: "\#(name)Feature",
                    path: "Sources",
                    swiftSettings: swiftSettings,
                    linkerSettings: sdkLinking(["NavHostKit"])
                ),
                .target(
                    name: "\#(name)FeatureEntry",
                    dependencies: ["\#(name)Feature"],
                    path: "Entry",
                    swiftSettings: swiftSettings,
                    linkerSettings: sdkLinking(["NavHostKit"])
                ),
                .testTarget(
                    name: "\#(name)FeatureTests",
                    dependencies: ["\#(name)Feature"],
                    path: "Tests",
                    swiftSettings: swiftSettings,
                    linkerSettings: sdkLinking(["NavHostKit", "NavHostTesting"], runPath: true)
                ),
            ],
            swiftLanguageModes: [.v6]
        )

        """#
    }

    func makefile(sdkDirectory: String) -> String {
        #"""
        # \#(name), a NavHost feature plugin built against the installed SDK.
        #   make            build lib\#(name)Feature.so and stage it: .build/<config>/plugins/\#(name)/ (manifest + library)
        #   make test       run the feature's tests on the SDK's headless host (NavHostTesting); TEST_FILTER=… some
        #   make check      build the plugin and load it through the daemon's own registry, as navhostd will, from
        #                   a folder of its own (no daemon takes it); SESSIONS=<folder> also checks it against a
        #                   daemon's saved sessions
        #   make install    copy the staged plugin into PLUGINDIR, where a running navhostd loads it by itself, and
        #                   wait for its answer: a build it refuses fails make install, saying why
        #   make uninstall  remove it from PLUGINDIR, and wait for a running navhostd to unload it: a removal it
        #                   refuses (other plugins need it) puts it back and fails, saying why
        #   make run        run a navhostd of your own on the staged plugin: socket, state and configuration in
        #                   .build/navhost-run, session main at the plugin's first route (ROOT=… another); a make in
        #                   another terminal stages a new build, which it reloads by itself; Ctrl-C stops it
        # SWIFTFLAGS adds options to swift build and swift test, like SWIFTFLAGS="-j 2".
        SWIFT       ?= swift
        SWIFTFLAGS  ?=
        CONFIG      ?= debug
        NAVHOST_SDK ?= \#(sdkDirectory)
        # The plugins folder of the installation the SDK belongs to (make install there puts navhostd's beside it).
        PLUGINDIR   ?= $(NAVHOST_SDK)/plugins
        BUILD_DIR   := .build/$(CONFIG)
        STAGED      := $(BUILD_DIR)/plugins/\#(name)
        # Left by a make that failed, taken away by one that succeeds: make install refuses the build staged before.
        FAILED      := $(BUILD_DIR)/.\#(name).make-failed
        LIBRARY     := lib\#(name)Feature.so
        # Where make check stages the build it checks: not a folder a daemon watches.
        CHECKING    := $(BUILD_DIR)/checking
        # The navctl make install asks whether the daemon took the build (navctl plugins wait), for up to
        # INSTALL_WAIT seconds; NAVHOST_SOCKET names the daemon's socket, as for navctl itself (under sudo, give it as
        # sudo make install NAVHOST_SOCKET=…). Without a navctl (the SDK alone installs none), make install only copies.
        NAVCTL       ?= navctl
        INSTALL_WAIT ?= 30
        # make run's daemon: the navhostd beside the SDK's navhost-plugin-tool (an installation's), else the first on
        # PATH, unless NAVHOSTD names one (a NavHost checkout's: $(HOME)/src/navhost/.build/debug/navhostd); ROOT, the
        # route session main starts at; SOCKET, its socket (by default .build/navhost-run/navhostd.sock); RUN_ARGS,
        # options for navhostd.
        NAVHOSTD     ?=
        ROOT         ?=
        SOCKET       ?=
        RUN_ARGS     ?=
        export NAVHOST_SDK

        .PHONY: all build test check install uninstall run clean sdk

        all: build

        # A build or a staging that fails leaves the build staged before in place (a daemon may be loading it from
        # there), and says so to make install, which refuses to take it for this one. Built under a umask of 022:
        # navhostd refuses a plugin whose folders, .build's among them, its group or others may write.
        build: sdk
        	@umask 022 && mkdir -p $(BUILD_DIR) && touch $(FAILED)
        	umask 022 && $(SWIFT) build -c $(CONFIG) --manifest-cache none $(SWIFTFLAGS) --product \#(name)Feature
        	umask 022 && $(NAVHOST_SDK)/navhost-plugin-tool stage --build-dir $(BUILD_DIR)
        	@rm -f $(FAILED)

        # Fails when navhostd would quarantine the plugin (a makeCoordinator that throws, a resource missing). A hard
        # dependency must be staged beside it in $(BUILD_DIR)/plugins. With SESSIONS=<state folder>/sessions (a
        # daemon's saved sessions; the NavHost checkout's make run keeps them in .build/state/sessions), it also fails
        # when the build would not bring back a screen they saved as it was: its saved state no longer decodes, or its
        # route or parameters no longer fit (PLUGINDIR's manifests say which plugin served a route it drops: give the
        # folder the daemon loads it from, like PLUGINDIR=~/src/navhost/.build/debug/plugins for a checkout's make
        # run). ACCEPT_LOSS="ROUTE …" names routes whose saved screens may go or start fresh on purpose. The build is
        # staged and checked in a folder of its own, $(CHECKING), beside copies of the other plugins staged in
        # $(BUILD_DIR)/plugins: staged there, make run's daemon would reload it before the check read the sessions,
        # and a saved state the new build cannot decode would be gone already. Stage it with make once it passes.
        check: sdk
        	umask 022 && $(SWIFT) build -c $(CONFIG) --manifest-cache none $(SWIFTFLAGS) --product \#(name)Feature
        	@rm -rf $(CHECKING) && umask 022 && mkdir -p $(CHECKING) && for folder in $(BUILD_DIR)/plugins/*/; do \
        		test ! -d "$$folder" || test "$$(basename "$$folder")" = \#(name) || cp -R "$$folder" $(CHECKING)/; done
        	umask 022 && $(NAVHOST_SDK)/navhost-plugin-tool stage --build-dir $(BUILD_DIR) --output $(CHECKING)
        	$(NAVHOST_SDK)/navhost-plugin-tool check $(CHECKING) \
        		$(if $(SESSIONS),--sessions '$(SESSIONS)' $(if $(wildcard $(PLUGINDIR)),--installed '$(PLUGINDIR)')) \
        		$(if $(SESSIONS),$(foreach route,$(ACCEPT_LOSS),--accept-loss '$(route)'))

        # TEST_FILTER runs only the tests it matches (swift test --filter).
        test: sdk
        	$(SWIFT) test -c $(CONFIG) --manifest-cache none $(SWIFTFLAGS) $(if $(TEST_FILTER),--filter '$(TEST_FILTER)')

        # Copies the staged folder beside its final place, then renames it in: the daemon never sees half a plugin.
        # It installs what make staged and builds nothing, so that sudo make install leaves .build to its owner. A
        # folder it has to create is one no running navhostd watches yet: it says so. Then it waits for the daemon's
        # answer (navctl plugins wait): a build it refuses fails make install with the daemon's reason, and the build
        # installed before goes back in its place (hidden beside it meanwhile), which the daemon serves on: a restart
        # would load the refused one. No daemon to ask, or one that does not answer, is a note.
        install:
        	@test -f $(STAGED)/manifest.json || { echo "nothing staged in $(STAGED): run make first" >&2; exit 1; }
        	@test ! -e $(FAILED) || { echo "the last make failed: $(STAGED) holds the build before it; run make" \
        "again once it builds" >&2; exit 1; }
        	@test ! $(BUILD_DIR)/$(LIBRARY) -nt $(STAGED)/$(LIBRARY) || { echo "$(BUILD_DIR)/$(LIBRARY) is newer than \
        the build make staged (make test and swift build relink it; only make stages it): run make, then make \
        install" >&2; exit 1; }
        	@test -n "$(DESTDIR)" || test -d $(PLUGINDIR) || echo "note: $(PLUGINDIR) did not exist, so no navhostd \
        watches it yet; for the daemon make run starts in a NavHost checkout: make install \
        PLUGINDIR=<checkout>/.build/debug/plugins" >&2
        	@echo "make install: $(STAGED) -> $(DESTDIR)$(PLUGINDIR)/\#(name)"
        	@rm -rf $(DESTDIR)$(PLUGINDIR)/.\#(name).installing $(DESTDIR)$(PLUGINDIR)/.\#(name).previous
        	@umask 022 && mkdir -p $(DESTDIR)$(PLUGINDIR)
        	@cp -R $(STAGED) $(DESTDIR)$(PLUGINDIR)/.\#(name).installing
        	@chmod -R go-w $(DESTDIR)$(PLUGINDIR)/.\#(name).installing
        	@if test -d $(DESTDIR)$(PLUGINDIR)/\#(name); then \
        		mv $(DESTDIR)$(PLUGINDIR)/\#(name) $(DESTDIR)$(PLUGINDIR)/.\#(name).previous; fi
        	@mv $(DESTDIR)$(PLUGINDIR)/.\#(name).installing $(DESTDIR)$(PLUGINDIR)/\#(name)
        	@if test -n "$(DESTDIR)"; then status=0; \
        	elif ! command -v $(NAVCTL) >/dev/null 2>&1; then status=0; \
        		echo "note: installed; no navctl ($(NAVCTL)) to ask whether the daemon took it (NAVCTL=… names one)" >&2; \
        	else \
        		$(NAVCTL) plugins wait $(if $(NAVHOST_SOCKET),--socket $(NAVHOST_SOCKET)) --timeout $(INSTALL_WAIT) \
        			$(PLUGINDIR)/\#(name); status=$$?; \
        		if [ $$status -eq 69 ]; then status=0; \
        			echo "note: installed in $(PLUGINDIR); no daemon said it took it" >&2; fi; \
        	fi; \
        	if [ $$status -eq 2 ] && test -d $(PLUGINDIR)/.\#(name).previous; then \
        		rm -rf $(PLUGINDIR)/\#(name) && mv $(PLUGINDIR)/.\#(name).previous $(PLUGINDIR)/\#(name) && \
        		echo "make install: the build installed before is back in $(PLUGINDIR)/\#(name) (what the daemon" \
        			"serves did not change)" >&2; \
        	elif [ $$status -eq 2 ]; then \
        		echo "make install: $(PLUGINDIR)/\#(name) stays, refused for the reason above: the daemon tries it" \
        			"again when its folder changes or a plugin it needs arrives; make uninstall takes it out" >&2; \
        	fi; \
        	rm -rf $(DESTDIR)$(PLUGINDIR)/.\#(name).previous; \
        	exit $$status

        # Moves the plugin's folder aside (hidden), then waits for the daemon's answer (navctl plugins wait
        # --removed): a removal it refuses (loaded plugins need the plugin, or it serves a session's root), or any
        # other failure to ask, puts the folder back and fails make uninstall, the plugin serving on; otherwise the
        # folder goes. No daemon to ask, or one that does not answer, is a note. Nothing installed is no failure.
        uninstall:
        	@if ! test -d $(DESTDIR)$(PLUGINDIR)/\#(name); then \
        		echo "make uninstall: nothing in $(DESTDIR)$(PLUGINDIR)/\#(name)"; exit 0; fi; \
        	echo "make uninstall: $(DESTDIR)$(PLUGINDIR)/\#(name)"; \
        	rm -rf $(DESTDIR)$(PLUGINDIR)/.\#(name).removing; \
        	mv $(DESTDIR)$(PLUGINDIR)/\#(name) $(DESTDIR)$(PLUGINDIR)/.\#(name).removing || exit 1; \
        	if test -n "$(DESTDIR)"; then status=0; \
        	elif ! command -v $(NAVCTL) >/dev/null 2>&1; then status=0; \
        		echo "note: removed; no navctl ($(NAVCTL)) to ask whether the daemon unloaded it (NAVCTL=… names" \
        			"one; navctl plugins list says \"removal refused\" when another plugin needs it)" >&2; \
        	else \
        		$(NAVCTL) plugins wait --removed $(if $(NAVHOST_SOCKET),--socket $(NAVHOST_SOCKET)) \
        			--timeout $(INSTALL_WAIT) $(PLUGINDIR)/\#(name); status=$$?; \
        		if [ $$status -eq 69 ]; then status=0; \
        			echo "note: removed from $(PLUGINDIR); no daemon said it unloaded it" >&2; fi; \
        	fi; \
        	if [ $$status -eq 0 ]; then rm -rf $(DESTDIR)$(PLUGINDIR)/.\#(name).removing; \
        	elif test -e $(PLUGINDIR)/\#(name); then \
        		echo "make uninstall: $(PLUGINDIR)/\#(name) was put in place meanwhile; the folder taken out is" \
        			"$(PLUGINDIR)/.\#(name).removing" >&2; \
        	else \
        		mv -T $(PLUGINDIR)/.\#(name).removing $(PLUGINDIR)/\#(name) && \
        		if [ $$status -eq 2 ]; then served=": the daemon serves it on"; else served=""; fi && \
        		echo "make uninstall: $(PLUGINDIR)/\#(name) is back in place$$served" >&2; \
        	fi; \
        	exit $$status

        # The daemon replaces navhost-plugin-tool run's process, which replaces the recipe's shell (exec): a SIGTERM or
        # Ctrl-C make gets reaches navhostd itself, which stops cleanly.
        run: build
        	exec $(NAVHOST_SDK)/navhost-plugin-tool run $(BUILD_DIR)/plugins --plugin \#(name) $(if $(ROOT),--root '$(ROOT)') \
        		$(if $(NAVHOSTD),--navhostd '$(NAVHOSTD)') $(if $(SOCKET),--socket '$(SOCKET)') \
        		$(if $(RUN_ARGS),-- $(RUN_ARGS))

        clean:
        	rm -rf .build

        # A wrong NAVHOST_SDK is said here, not as the compiler's "no such module 'NavHostKit'".
        sdk:
        	@test -f $(NAVHOST_SDK)/libNavHostKit.so && test -d $(NAVHOST_SDK)/swift \
        		&& test -x $(NAVHOST_SDK)/navhost-plugin-tool || { \
        		echo "$(NAVHOST_SDK) holds no NavHost SDK (libNavHostKit.so, swift/, navhost-plugin-tool): set" \
        			"NAVHOST_SDK to the folder make install-sdk-files filled (PKGLIBDIR: /usr/lib/navhost by default)" >&2; \
        		exit 1; }

        """#
    }

    /// The NavHost repository's swift-format settings, so `swift format lint` reads the scaffold as written.
    var swiftFormatConfiguration: String {
        """
        {
            "version": 1,
            "lineLength": 120,
            "indentation": { "spaces": 4 },
            "maximumBlankLines": 1,
            "respectsExistingLineBreaks": true,
            "lineBreakBeforeEachArgument": true,
            "multiElementCollectionTrailingCommas": true,
            "rules": {
                "AllPublicDeclarationsHaveDocumentation": false,
                "AlwaysUseLowerCamelCase": false,
                "NeverForceUnwrap": false,
                "NeverUseForceTry": false,
                "NeverUseImplicitlyUnwrappedOptionals": false,
                "OrderedImports": true,
                "UseLetInEveryBoundCaseVariable": false,
                "UseTripleSlashForDocumentationComments": true,
                "ValidateDocumentationComments": false
            }
        }

        """
    }

    var packageReadme: String {
        #"""
        # \#(name)

        A NavHost feature plugin: \#(entitiesInProse) in a list (`\#(namespace).list`), kept across restarts in the
        feature's durable store. It is built against the NavHostKit SDK installed on this machine, not inside the
        NavHost repository.

        ```sh
        make              # builds lib\#(name)Feature.so and stages it in .build/debug/plugins/\#(name)/
        make test         # the feature's tests, on the SDK's headless host
        make check        # loads the staged plugin through the daemon's own registry, as navhostd will
        make install      # copies it into the plugins folder beside the SDK (PLUGINDIR=… for another), and
                          # waits for the daemon's answer: a build it refuses fails, with its reason
        make uninstall    # takes it out of PLUGINDIR again and waits for the daemon to unload it
        make run          # runs a navhostd of your own on the staged plugin, session main at its first route
        ```

        `SWIFTFLAGS="-j 2"` passes options to `swift build` and `swift test`; `NAVHOST_SDK=…` builds against another
        installed SDK. `make install` asks the daemon through `navctl` (`NAVCTL=…` names another, `NAVHOST_SOCKET=…`
        another daemon's socket). A plugin this one needs (a hard dependency in `plugin.json`) must be staged beside
        it for `make check`: copy its staged folder into `.build/debug/plugins/`.

        The tests check the routes and intents the feature offers by name, and what each intent of the example does to
        the screen's state: a route or an intent you add is checked by name at once, but what it does needs a test of
        its own, and a state you change needs the tests that compare the whole state brought up to date.

        A running `navhostd` loads the plugin as soon as its folder appears in its plugins folder; then
        `navctl navigate \#(namespace).list` shows the list and `navctl send onTappedAdd title=First` adds an item.
        Without one, or to leave it alone, `make run` runs a daemon of your own on the staged plugin (its socket,
        state and configuration in `.build/navhost-run`; `NAVHOSTD=…` names the navhostd when none is installed
        beside the SDK, like a NavHost checkout's `.build/debug/navhostd`, whose `navctl` is beside it):
        `NAVHOST_SOCKET=$PWD/.build/navhost-run/navhostd.sock navctl stack` shows `\#(namespace).list` at the root,
        and a `make` in another terminal stages a new build, which it reloads by itself, the screens staying.

        The code follows the seeds' layout: `Sources/Presentation` (the route enum and the ViewModel), `Sources/Domain`
        (entities, use cases, repository protocols; no imports), `Sources/Data` (DTOs, data sources, repositories), and
        the composition root in `Sources/\#(name)Coordinator.swift`. `plugin.json` holds the name, version, summary,
        dependencies and resources; the staged `manifest.json` adds the routes, the SDK version and the checksum.

        """#
    }
}

// MARK: - Writing

extension FeatureScaffold {
    /// Writes `files` under `folder`, creating the folders they need.
    func write(_ files: [(path: String, contents: String)], into folder: String) throws(PluginToolError) {
        do {
            for file in files {
                let path = "\(folder)/\(file.path)"
                try FileManager.default.createDirectory(
                    atPath: FileIO.parentDirectory(of: path),
                    withIntermediateDirectories: true
                )
                try FileIO.writeAtomically(Array(file.contents.utf8), to: path)
            }
        } catch {
            throw PluginToolError(.fileSystem, "cannot write \(folder): \(error)")
        }
    }
}
