// The scaffold's plugin.json, C entry point, feature module and composition root.

extension FeatureScaffold {
    var pluginJSON: String {
        #"""
        {
            "name": "\#(name)",
            "version": "0.1.0",
            "summary": "\#(name): a list of \#(entitiesInProse), kept across restarts.",
            "dependencies": [],
            "resources": []
        }

        """#
    }

    /// The entry file's imports, in the order swift-format wants: lexicographic.
    var entryImports: String {
        ["NavHostKit", "\(name)Feature"].sorted().map { "import \($0)" }.joined(separator: "\n")
    }

    var entryFile: String {
        #"""
        // The \#(name) plugin's C entry point. It lives in a target of its own because every plugin exports the same
        // symbol: the feature target is also linked into the one test binary, beside the other plugins.
        \#(entryImports)

        /// Hands the daemon the \#(name) feature module (see `FeatureExport`).
        @_cdecl("navhost_feature_entry")
        public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
            FeatureExport.export(make\#(name)Feature())
        }

        """#
    }

    var featureFile: String {
        #"""
        package import NavHostKit

        /// The \#(name) feature: a list of \#(entitiesInProse), kept in the host's durable store.
        ///
        /// Add a screen by adding a case to ``\#(name)Route``, a `ScreenDescriptor` here, and a ViewModel built in
        /// ``\#(name)Coordinator``.
        final class \#(name)Feature: FeatureModule {
            let name = "\#(name)"
            let screens = [
                ScreenDescriptor(
                    route: "\#(namespace).list",
                    viewModel: \#(name)ViewModel.self,
                    summary: "Every \#(entityInProse), oldest first, and a way to add one."
                )
            ]

            init() {}

            @MainActor
            func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
                \#(name)Coordinator(services: services)
            }
        }

        /// The module that the plugin's C entry point (in `Entry/`, beside `Sources/`) hands to the daemon.
        package func make\#(name)Feature() -> any FeatureModule {
            \#(name)Feature()
        }

        """#
    }

    var coordinatorFile: String {
        #"""
        import NavHostKit

        /// The \#(name) feature's composition root: wires the host's store, the repository and the use cases once,
        /// then builds each screen's ViewModel in one `switch` over ``\#(name)Route``.
        @MainActor
        final class \#(name)Coordinator: Coordinator {

            // MARK: Private Properties

            private let get\#(name)UseCase: any Get\#(name)UseCaseProtocol
            private let add\#(entity)UseCase: any Add\#(entity)UseCaseProtocol
            private let logger: FeatureLogger

            // MARK: Initialization

            /// Keeps the \#(entitiesInProse) in `services.store` and logs to `services.logger`.
            init(services: HostServices) {
                let repository = \#(name)RepositoryImpl(
                    dataSource: \#(name)StoreDataSource(store: services.store),
                    logger: services.logger
                )
                self.get\#(name)UseCase = Get\#(name)UseCase(repository: repository)
                self.add\#(entity)UseCase = Add\#(entity)UseCase(repository: repository)
                self.logger = services.logger
            }

            // MARK: Public Functions

            func makeViewModel(for route: \#(name)Route, router: Router<\#(name)Route>) -> any ViewModel {
                switch route {
                case .list:
                    \#(name)ViewModel(
                        get\#(name)UseCase: get\#(name)UseCase,
                        add\#(entity)UseCase: add\#(entity)UseCase,
                        router: router,
                        logger: logger
                    )
                }
            }
        }

        """#
    }
}
