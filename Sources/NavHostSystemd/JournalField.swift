/// One field of a journal entry: a name journald accepts and a value of any bytes.
///
/// journald's rules for a field name: upper-case ASCII letters, digits and `_`; not starting with a digit; at most
/// 64 characters. Names starting with `_` are trusted fields that journald sets itself and drops from clients, so
/// this type refuses them too.
public struct JournalField: Sendable, Hashable {
    // MARK: - Public Properties

    /// The longest field name journald accepts.
    public static let maximumNameLength = 64

    /// The field name, like `MESSAGE` or `NAVHOST_PLUGIN`.
    public let name: String
    /// The value. It may hold newlines and any other byte.
    public var value: [UInt8]

    // MARK: - Initialization

    /// A field, or `nil` when `name` breaks journald's rules (see ``isValidName(_:)``).
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value's bytes.
    public init?(name: String, value: [UInt8]) {
        guard Self.isValidName(name) else { return nil }
        self.name = name
        self.value = value
    }

    /// A field with a text value, or `nil` when `name` breaks journald's rules (see ``isValidName(_:)``).
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value, stored as UTF-8.
    public init?(name: String, value: String) {
        self.init(name: name, value: Array(value.utf8))
    }

    /// A field whose name the caller knows is valid (the handler's own, fixed names).
    init(trustedName name: String, value: String) {
        assert(Self.isValidName(name), "\(name) is not a journal field name")
        self.name = name
        self.value = Array(value.utf8)
    }

    // MARK: - Public Functions

    /// Whether journald accepts `name` from a client.
    ///
    /// - Parameter name: A candidate field name.
    /// - Returns: `true` for 1 to 64 characters of `A`–`Z`, `0`–`9` and `_`, not starting with `_` or a digit.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumNameLength, first.isASCIIUppercase else { return false }
        return bytes.allSatisfy { $0.isASCIIUppercase || $0.isASCIIDigit || $0 == UInt8(ascii: "_") }
    }

    /// The field name for a logger metadata key, or `nil` when nothing of the key survives.
    ///
    /// Letters are upper-cased, every other character that journald refuses becomes `_` (so `navhost.client.pid`
    /// becomes `NAVHOST_CLIENT_PID`), leading `_` and digits are dropped, and the result is cut to 64 characters.
    ///
    /// - Parameter key: A metadata key, like `request.id`.
    /// - Returns: A valid field name, or `nil`.
    public static func sanitizedName(forKey key: String) -> String? {
        var bytes: [UInt8] = key.utf8.map { byte in
            if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { return byte - 32 }
            if byte.isASCIIUppercase || byte.isASCIIDigit { return byte }
            return UInt8(ascii: "_")
        }
        let firstUsable = bytes.firstIndex(where: \.isASCIIUppercase) ?? bytes.endIndex
        bytes.removeSubrange(..<firstUsable)
        guard !bytes.isEmpty else { return nil }
        return String(decoding: bytes.prefix(maximumNameLength), as: UTF8.self)
    }
}

// MARK: - UInt8

extension UInt8 {
    fileprivate var isASCIIUppercase: Bool { self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") }
    fileprivate var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}
