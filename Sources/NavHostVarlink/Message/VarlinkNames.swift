/// The spelling rules of Varlink names, from the grammar in the UAPI Varlink specification.
enum VarlinkNames {
    /// An interface name: at least two dot-separated components of letters, digits and inner hyphens; the first
    /// component starts with a letter.
    static func isInterfaceName(_ name: Substring) -> Bool {
        let components = name.split(separator: ".", omittingEmptySubsequences: false)
        guard components.count >= 2 else { return false }
        for (index, component) in components.enumerated() {
            guard let first = component.utf8.first, let last = component.utf8.last else { return false }
            if index == 0 ? !isLetter(first) : !isLetterOrDigit(first) { return false }
            if !isLetterOrDigit(last) { return false }
            if !component.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }) { return false }
        }
        return true
    }

    /// A type, method or error name: an uppercase letter, then letters and digits.
    static func isMemberName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else { return false }
        return name.utf8.allSatisfy(isLetterOrDigit)
    }

    /// A field name: a letter, then letters and digits, with single underscores between them.
    static func isFieldName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, isLetter(first), let last = name.utf8.last, last != UInt8(ascii: "_")
        else { return false }
        var previousWasUnderscore = false
        for byte in name.utf8 {
            if byte == UInt8(ascii: "_") {
                if previousWasUnderscore { return false }
                previousWasUnderscore = true
            } else if isLetterOrDigit(byte) {
                previousWasUnderscore = false
            } else {
                return false
            }
        }
        return true
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
