// The scaffold's Presentation layer: the route enum and the list screen's ViewModel.

extension FeatureScaffold {
    var routeFile: String {
        #"""
        import NavHostKit

        /// The \#(name) feature's screens.
        ///
        /// | case | wire ID | parameters |
        /// |---|---|---|
        /// | `.list` | `\#(namespace).list` | none |
        enum \#(name)Route: Route {
            static let namespace = "\#(namespace)"

            /// Every \#(entityInProse).
            case list
        }

        """#
    }

    var viewModelFile: String {
        #"""
        import NavHostKit
        import Observation

        /// The list screen, `\#(namespace).list`: every \#(entityInProse), oldest first, and a way to add one.
        ///
        /// Its state on the wire:
        ///
        /// ```json
        /// {"status":"loaded","value":{"items":[{"id":"\#(idPrefix)-1","title":"First"}],"addError":null}}
        /// ```
        @MainActor
        @Observable
        final class \#(name)ViewModel: ViewModel {

            /// What the user can do on the list screen.
            enum Intent: ViewModelIntent {
                /// Adds \#(article) \#(entityInProse) titled `title`: `{"title":"First"}`.
                case onTappedAdd(title: String)
                /// Loads the list again after a failure.
                case onTappedRetry

                static let names = ["onTappedAdd", "onTappedRetry"]
            }

            /// The list as front ends show it.
            struct Content: Encodable, Equatable, Sendable {
                var items: [Item]
                /// Why the last add was refused; `null` when it was not.
                var addError: String?

                private enum CodingKeys: String, CodingKey {
                    case items, addError
                }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(items, forKey: .items)
                    try container.encode(addError, forKey: .addError)
                }
            }

            /// One \#(entityInProse) as front ends show it.
            struct Item: Encodable, Equatable, Sendable {
                var id: String
                var title: String
            }

            // MARK: Private Properties

            private let get\#(name)UseCase: any Get\#(name)UseCaseProtocol
            private let add\#(entity)UseCase: any Add\#(entity)UseCaseProtocol
            /// Opens other screens, like `router.navigate(to: .detail(id: item.id))` once ``\#(name)Route`` has them.
            private let router: Router<\#(name)Route>
            private let logger: FeatureLogger
            /// Holds an intent sent while the list loads until it has.
            @ObservationIgnored private let loadCompletion = LoadCompletion()

            // MARK: Public Properties

            private(set) var state: LoadingState<Content> = .idle

            // MARK: Initialization

            init(
                get\#(name)UseCase: any Get\#(name)UseCaseProtocol,
                add\#(entity)UseCase: any Add\#(entity)UseCaseProtocol,
                router: Router<\#(name)Route>,
                logger: FeatureLogger
            ) {
                self.get\#(name)UseCase = get\#(name)UseCase
                self.add\#(entity)UseCase = add\#(entity)UseCase
                self.router = router
                self.logger = logger
            }

            // MARK: Lifecycle

            func onAppear() async {
                await load\#(name)()
            }

            // MARK: Public Functions

            func handle(_ intent: Intent) async throws {
                switch intent {
                case .onTappedAdd(let title): try await onTappedAdd(title)
                case .onTappedRetry: await onTappedRetry()
                }
            }

            /// Adds \#(article) \#(entityInProse) once the list has loaded: a front end may send it right after
            /// navigating here. Fails (`IntentFailed`) when the list did not load, rather than being answered as done
            /// without adding.
            func onTappedAdd(_ title: String) async throws {
                _ = try await loadCompletion.value(of: state)
                do {
                    let added = try await add\#(entity)UseCase.execute(title: title)
                    updateContent {
                        $0.items.append(formatItem(added))
                        $0.addError = nil
                    }
                } catch {
                    logger.info("\#(namespace).addRefused", metadata: ["error": "\(error)"])
                    updateContent { $0.addError = formatAddError(error) }
                }
            }

            func onTappedRetry() async {
                await load\#(name)()
            }
        }

        // MARK: - Private Functions

        private extension \#(name)ViewModel {
            func load\#(name)() async {
                guard !state.isLoading else { return }
                state = .loading
                defer { loadCompletion.signal() }
                do {
                    let \#(lowerName) = try await get\#(name)UseCase.execute()
                    state = .loaded(Content(items: \#(lowerName).map(formatItem), addError: nil))
                } catch {
                    logger.error("\#(namespace).loadFailed", metadata: ["error": "\(error)"])
                    state = .error("The list could not be loaded. Please try again.")
                }
            }

            /// Changes the content in place; does nothing while there is none (loading, or failed to load).
            func updateContent(_ change: (inout Content) -> Void) {
                guard var content = state.value else { return }
                change(&content)
                state = .loaded(content)
            }

            func formatItem(_ \#(lowerEntity): \#(entity)) -> Item {
                Item(id: \#(lowerEntity).id, title: \#(lowerEntity).title)
            }

            func formatAddError(_ error: any Error) -> String {
                switch error {
                case \#(name)Error.emptyTitle:
                    "Enter a title."
                default:
                    "The \#(entityInProse) could not be added. Please try again."
                }
            }
        }

        """#
    }
}
