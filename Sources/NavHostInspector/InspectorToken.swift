// MARK: - InspectorToken

/// The secret a browser must show before the inspector answers it, like a Jupyter server's token.
///
/// A fresh token is 16 bytes from the system's random number generator (`getrandom(2)` on Linux), written as 32
/// lowercase hexadecimal digits. It is printed once, in the page's address, when `navctl inspect` starts.
public struct InspectorToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as 32 lowercase hexadecimal digits.
    public let value: String

    /// A fresh token from the system's random number generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(randomBytesFrom: &generator)
    }

    /// A token from `generator`'s bytes, for a test that needs a known token.
    public init(randomBytesFrom generator: inout some RandomNumberGenerator) {
        var digits = ""
        for _ in 0..<Self.byteCount {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            digits += Self.hexadecimal(byte)
        }
        self.value = digits
    }

    /// The token itself: whoever prints it shows the secret.
    public var description: String { value }

    // MARK: - Public Functions

    /// Whether `candidate` is this token, compared in time that does not depend on where they first differ.
    ///
    /// Every byte of an equally long candidate is looked at; a candidate of another length is refused at once,
    /// which tells only what is already public: every token is 32 characters long.
    public func matches(_ candidate: some StringProtocol) -> Bool {
        let expected = Array(value.utf8)
        let given = Array(candidate.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices {
            difference |= expected[index] ^ given[index]
        }
        return difference == 0
    }

    // MARK: - Private Properties

    private static let byteCount = 16
}

// MARK: - Private Functions

private extension InspectorToken {
    static func hexadecimal(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
