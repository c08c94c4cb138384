// The scaffold's tests: the feature on the daemon's real navigation core (NavHostTesting's FeatureTestHost), and
// the ViewModel alone with stub use cases, as the seeds turn previews into tests.

extension FeatureScaffold {
    var featureTestsFile: String {
        #"""
        import NavHostKit
        import NavHostTesting
        import Testing

        @testable import \#(name)Feature

        @MainActor
        @Suite("The \#(name) feature on the navigation core")
        struct \#(name)FeatureTests {
            /// The feature on the real navigation core, its list on top. `Resources` is the package's folder of files
            /// `plugin.json` lists (`swift test` runs in the package), as `HostServices.resources` reads them.
            static func makeHost() throws -> FeatureTestHost {
                try FeatureTestHost(
                    features: [\#(name)Feature()],
                    root: "\#(namespace).list",
                    resourceDirectory: "Resources"
                )
            }

            @Test("Its screens list every route, with the intents of its ViewModel")
            func screensListEveryRoute() throws {
                let feature = \#(name)Feature()
                #expect(feature.name == "\#(name)")
                #expect(feature.screens.map(\.route) == [try \#(name)Route.list.request.id])
                #expect(feature.screens.map(\.intents) == [\#(name)ViewModel.Intent.names])
            }

            @Test("The list starts empty; an added \#(entityInProse) shows at once and is stored")
            func addShowsAndStores() async throws {
                let host = try Self.makeHost()
                try await host.settle()
                #expect(host.top.state == ["status": "loaded", "value": ["items": [], "addError": nil]])

                try await host.send("onTappedAdd", ["title": "First"])
                try await host.settle()
                #expect(host.top.state["value"]?["items"] == [["id": "\#(idPrefix)-1", "title": "First"]])
                #expect(await host.store.values["\#(namespace)"] == [["id": "\#(idPrefix)-1", "title": "First"]])
            }

            @Test("A blank title is refused with a message, and nothing is stored")
            func blankTitleIsRefused() async throws {
                let host = try Self.makeHost()
                try await host.settle()

                try await host.send("onTappedAdd", ["title": "  "])
                try await host.settle()
                #expect(host.top.state["value"]?["addError"] == "Enter a title.")
                #expect(await host.store.values["\#(namespace)"] == nil)
            }
        }

        """#
    }

    var viewModelTestsFile: String {
        #"""
        import NavHostKit
        import NavHostTesting
        import Testing

        @testable import \#(name)Feature

        @MainActor
        @Suite("\#(name)ViewModel")
        struct \#(name)ViewModelTests {
            @Test("onAppear shows what the use case gives")
            func onAppearShowsTheList() async {
                let viewModel = makeViewModel(items: .success([\#(entity)(id: "\#(idPrefix)-1", title: "First")]))
                #expect(viewModel.state == .idle)

                await viewModel.onAppear()

                #expect(viewModel.state == .loaded(.init(items: [.init(id: "\#(idPrefix)-1", title: "First")], addError: nil)))
            }

            @Test("onAppear shows an error when the list cannot be read, and onTappedRetry loads it again")
            func failureThenRetry() async throws {
                let getUseCase = Get\#(name)UseCaseStub(.failure(TestError.unavailable))
                let viewModel = makeViewModel(getUseCase: getUseCase)

                await viewModel.onAppear()
                #expect(viewModel.state == .error("The list could not be loaded. Please try again."))

                getUseCase.result = .success([])
                try await viewModel.handle(.onTappedRetry)
                #expect(viewModel.state == .loaded(.init(items: [], addError: nil)))
            }

            @Test("onTappedAdd shows the use case's refusal in addError")
            func addRefused() async throws {
                let viewModel = makeViewModel(items: .success([]), added: .failure(\#(name)Error.emptyTitle))
                await viewModel.onAppear()

                try await viewModel.handle(.onTappedAdd(title: ""))

                #expect(viewModel.state.value?.addError == "Enter a title.")
            }

            @Test("onTappedAdd fails when the list could not be loaded, rather than doing nothing")
            func addWithoutTheList() async {
                let viewModel = makeViewModel(items: .failure(TestError.unavailable))
                await viewModel.onAppear()

                await #expect(throws: LoadCompletion.NotLoaded.self) {
                    try await viewModel.handle(.onTappedAdd(title: "First"))
                }
            }

            private func makeViewModel(
                items: Result<[\#(entity)], any Error> = .success([]),
                added: Result<\#(entity), any Error> = .failure(TestError.unavailable),
                getUseCase: Get\#(name)UseCaseStub? = nil
            ) -> \#(name)ViewModel {
                \#(name)ViewModel(
                    get\#(name)UseCase: getUseCase ?? Get\#(name)UseCaseStub(items),
                    add\#(entity)UseCase: Add\#(entity)UseCaseStub(added),
                    router: Router(),
                    logger: .silent
                )
            }
        }

        """#
    }

    var testDoublesFile: String {
        #"""
        import NavHostKit
        import NavHostTesting
        import Synchronization

        @testable import \#(name)Feature

        // MARK: - Mock

        /// A `Get\#(name)UseCase` that gives what the test sets.
        final class Get\#(name)UseCaseStub: Get\#(name)UseCaseProtocol {
            private let answer: Mutex<Result<[\#(entity)], any Error>>

            /// What the next call gives.
            var result: Result<[\#(entity)], any Error> {
                get { answer.withLock { $0 } }
                set { answer.withLock { $0 = newValue } }
            }

            init(_ result: Result<[\#(entity)], any Error>) {
                self.answer = Mutex(result)
            }

            func execute() async throws -> [\#(entity)] {
                try result.get()
            }
        }

        /// An `Add\#(entity)UseCase` that gives what the test sets.
        final class Add\#(entity)UseCaseStub: Add\#(entity)UseCaseProtocol {
            private let result: Result<\#(entity), any Error>

            init(_ result: Result<\#(entity), any Error>) {
                self.result = result
            }

            nonisolated(nonsending) func execute(title: String) async throws -> \#(entity) {
                try result.get()
            }
        }

        """#
    }
}
