// The scaffold's Data layer: the stored form, the data source over the host's store, and the repository.

extension FeatureScaffold {
    var dtoFile: String {
        #"""
        /// \#(article.prefix(1).uppercased() + article.dropFirst()) \#(entityInProse) as it is stored: `{"id":"\#(idPrefix)-1","title":"First"}`.
        struct \#(entity)DTO: Codable, Equatable, Sendable {
            let id: String
            let title: String

            init(id: String, title: String) {
                self.id = id
                self.title = title
            }

            /// The stored form of `\#(lowerEntity)`.
            init(_ \#(lowerEntity): \#(entity)) {
                self.init(id: \#(lowerEntity).id, title: \#(lowerEntity).title)
            }

            /// The \#(entityInProse) as the domain sees it.
            func toDomain() -> \#(entity) {
                \#(entity)(id: id, title: title)
            }
        }

        """#
    }

    var dataSourceFile: String {
        #"""
        import NavHostKit

        /// Reads and writes the stored \#(entitiesInProse).
        protocol \#(name)DataSourceProtocol: Sendable {
            /// The stored list, or `nil` when none was ever stored.
            func \#(lowerName)() async throws -> [\#(entity)DTO]?
            /// Changes the stored list (empty when none was ever stored) with `change`, in one step with its read, and
            /// returns it as stored.
            nonisolated(nonsending) func update\#(name)(
                _ change: @Sendable (inout [\#(entity)DTO]) -> Void
            ) async throws -> [\#(entity)DTO]
        }

        /// Keeps the list in the feature's durable key-value store, under one key: `\#(namespace)`.
        final class \#(name)StoreDataSource: \#(name)DataSourceProtocol {

            // MARK: Private Properties

            private let store: any KeyValueStore

            // MARK: Public Properties

            /// The key the list is stored under.
            static let key = "\#(namespace)"

            // MARK: Initialization

            init(store: any KeyValueStore) {
                self.store = store
            }

            // MARK: Public Functions

            func \#(lowerName)() async throws -> [\#(entity)DTO]? {
                try await store.load([\#(entity)DTO].self, forKey: Self.key)
            }

            nonisolated(nonsending) func update\#(name)(
                _ change: @Sendable (inout [\#(entity)DTO]) -> Void
            ) async throws -> [\#(entity)DTO] {
                // One step of the store: an item another intent adds meanwhile is in the list `change` gets, or it
                // gets this one's.
                let stored = try await store.update([\#(entity)DTO].self, forKey: Self.key) { list in
                    var items = list ?? []
                    change(&items)
                    list = items
                }
                return stored ?? []
            }
        }

        """#
    }

    var repositoryFile: String {
        #"""
        import NavHostKit

        /// The \#(entitiesInProse), kept in the host's durable store.
        final class \#(name)RepositoryImpl: \#(name)RepositoryProtocol {

            // MARK: Private Properties

            private let dataSource: any \#(name)DataSourceProtocol
            private let logger: FeatureLogger

            // MARK: Initialization

            init(dataSource: any \#(name)DataSourceProtocol, logger: FeatureLogger) {
                self.dataSource = dataSource
                self.logger = logger
            }

            // MARK: Public Functions

            func fetch\#(name)() async throws -> [\#(entity)] {
                try await dataSource.\#(lowerName)()?.map { $0.toDomain() } ?? []
            }

            nonisolated(nonsending) func add\#(entity)(titled title: String) async throws -> \#(entity) {
                let stored = try await dataSource.update\#(name) { items in
                    items.append(\#(entity)DTO(id: "\#(idPrefix)-\(items.count + 1)", title: title))
                }
                logger.debug("\#(namespace).saved", metadata: ["count": "\(stored.count)"])
                // The list as stored ends with the item this update appended: no other write came in between.
                return stored[stored.count - 1].toDomain()
            }
        }

        """#
    }
}
