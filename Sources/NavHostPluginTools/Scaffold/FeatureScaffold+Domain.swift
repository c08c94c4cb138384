// The scaffold's Domain layer: the entity, its errors, the repository protocol and the use cases. No imports.

extension FeatureScaffold {
    var entityFile: String {
        #"""
        /// One \#(entityInProse) of the list.
        struct \#(entity): Equatable, Sendable {
            /// Unique within the list: `1`, `2`, …
            var id: String
            var title: String
        }

        """#
    }

    var errorFile: String {
        #"""
        /// Why the \#(name) feature refused a change.
        enum \#(name)Error: Error, Equatable, Sendable {
            /// A title must have at least one character that is not white space.
            case emptyTitle
        }

        """#
    }

    var repositoryProtocolFile: String {
        #"""
        /// Where the \#(entitiesInProse) are kept.
        protocol \#(name)RepositoryProtocol: Sendable {
            /// Every stored \#(entityInProse), oldest first; empty when none was ever stored.
            func fetch\#(name)() async throws -> [\#(entity)]
            /// Adds \#(article) \#(entityInProse) titled `title` at the end of the stored list, numbered after the others,
            /// and returns it. The read of the list and its write are one step: \#(entitiesInProse) added at the same
            /// time, from this screen or another session's, all stay.
            nonisolated(nonsending) func add\#(entity)(titled title: String) async throws -> \#(entity)
        }

        """#
    }

    var getUseCaseFile: String {
        #"""
        /// Gives every \#(entityInProse).
        protocol Get\#(name)UseCaseProtocol: Sendable {
            /// The stored \#(entitiesInProse), oldest first.
            func execute() async throws -> [\#(entity)]
        }

        /// Gives the stored \#(entitiesInProse).
        final class Get\#(name)UseCase: Get\#(name)UseCaseProtocol {

            // MARK: Private Properties

            private let repository: any \#(name)RepositoryProtocol

            // MARK: Initialization

            init(repository: any \#(name)RepositoryProtocol) {
                self.repository = repository
            }

            // MARK: Public Functions

            func execute() async throws -> [\#(entity)] {
                try await repository.fetch\#(name)()
            }
        }

        """#
    }

    var addUseCaseFile: String {
        #"""
        /// Adds \#(article) \#(entityInProse) to the list.
        protocol Add\#(entity)UseCaseProtocol: Sendable {
            /// Adds \#(article) \#(entityInProse) titled `title` at the end of the list and returns it.
            ///
            /// - Throws: ``\#(name)Error/emptyTitle`` when `title` is blank.
            nonisolated(nonsending) func execute(title: String) async throws -> \#(entity)
        }

        /// Checks the title, then adds the \#(entityInProse) to the stored list.
        final class Add\#(entity)UseCase: Add\#(entity)UseCaseProtocol {

            // MARK: Private Properties

            private let repository: any \#(name)RepositoryProtocol

            // MARK: Initialization

            init(repository: any \#(name)RepositoryProtocol) {
                self.repository = repository
            }

            // MARK: Public Functions

            nonisolated(nonsending) func execute(title: String) async throws -> \#(entity) {
                guard title.contains(where: { !$0.isWhitespace }) else { throw \#(name)Error.emptyTitle }
                return try await repository.add\#(entity)(titled: title)
            }
        }

        """#
    }
}
