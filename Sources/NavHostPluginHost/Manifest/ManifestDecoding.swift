import NavHostJSON
import NavHostSpelling

/// Decoding and checking of the plugin manifests NavHost reads (`manifest.json`, and `plugin.json` at build time):
/// every failure becomes a ``PluginManifestError`` that names the field at fault.
package enum ManifestDecoding {
    /// Parses `bytes` as JSON and decodes a `T`, mapping every failure to a ``PluginManifestError``.
    package static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: some Collection<UInt8>
    ) throws(PluginManifestError) -> T {
        let json: JSONValue
        do {
            json = try JSONParser().parse(bytes)
        } catch {
            throw PluginManifestError(.notJSON, field: "", describe(error, in: bytes))
        }
        guard json.objectValue != nil else {
            throw PluginManifestError(.invalidField, field: "", "expected an object, found \(json.typeName)")
        }
        do {
            return try JSONValueDecoder().decode(type, from: json)
        } catch let error as PluginManifestError {
            throw error
        } catch let error as JSONError {
            let code: PluginManifestError.Code =
                error.code == .keyNotFound || error.code == .valueNotFound ? .missingField : .invalidField
            throw PluginManifestError(code, field: error.path ?? "", error.message)
        } catch let error as DecodingError {
            throw map(error)
        } catch {
            throw PluginManifestError(.invalidField, field: "", "\(error)")
        }
    }

    /// A coding path as manifests' errors write it: `routes[1].intents`.
    package static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// A parse error with its place as an editor shows it, line and column (from 1, in characters), not as a byte offset.
    private static func describe(_ error: JSONError, in bytes: some Collection<UInt8>) -> String {
        guard let offset = error.offset else { return error.description }
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // A character's first byte: the bytes that continue a UTF-8 sequence take no column of their own.
                column += 1
            }
        }
        return "JSON \(error.code): \(error.message) (line \(line), column \(column))"
    }

    private static func map(_ error: DecodingError) -> PluginManifestError {
        switch error {
        case .keyNotFound(let key, let context):
            return PluginManifestError(.missingField, field: path(context.codingPath + [key]), "the field is missing")
        case .valueNotFound(_, let context):
            return PluginManifestError(.missingField, field: path(context.codingPath), context.debugDescription)
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return PluginManifestError(.invalidField, field: path(context.codingPath), context.debugDescription)
        @unknown default:
            return PluginManifestError(.invalidField, field: "", "\(error)")
        }
    }
}

/// A coding key for any member name, to list what an object holds.
package struct AnyCodingKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses an object member that is not one of `allowed`, naming it, and the field it was probably meant to be
    /// when one is spelt close to it (``Spelling``): strict manifests catch misspelt fields.
    package func refuseUnknownFields(allowed: Set<String>) throws {
        let members = try container(keyedBy: AnyCodingKey.self)
        let fields = allowed.sorted()
        let present = Set(members.allKeys.map(\.stringValue))
        for key in members.allKeys where !allowed.contains(key.stringValue) {
            let closest = Spelling.closest(to: key.stringValue, among: fields, present: present)
            let hint = closest.map { " (did you mean \"\($0)\"?)" } ?? ""
            throw PluginManifestError(
                .unknownField,
                field: ManifestDecoding.path(codingPath + [key]),
                "the format has no field \"\(key.stringValue)\"\(hint); the fields are \(fields.joined(separator: ", "))"
            )
        }
    }
}

// MARK: - Rules

/// The rules manifest fields follow, shared by `manifest.json` and `plugin.json`.
package enum ManifestRules {
    /// A feature name: a letter, then letters and digits (it names Swift targets and files), at most 64 characters.
    package static func isFeatureName(_ text: String) -> Bool {
        guard let first = text.utf8.first, isLetter(first), text.utf8.count <= 64 else { return false }
        return text.utf8.allSatisfy { isLetter($0) || isDigit($0) }
    }

    /// A route ID: two or more dot-separated parts of letters, digits and `_`, like `products.detail`.
    package static func isRouteID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy(isIdentifier)
    }

    /// A parameter or intent name: letters, digits and `_`, not starting with a digit.
    package static func isIdentifier(_ text: some StringProtocol) -> Bool {
        guard let first = text.utf8.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
        return text.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// A plain file name, with no folder part, not hidden.
    package static func isFileName(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("/") && !text.hasPrefix(".") && !text.utf8.contains(0)
    }

    /// A relative path inside the plugin's folder: no leading `/`, no empty, `.` or `..` part, no hidden part.
    package static func isResourcePath(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { isFileName(String($0)) }
    }

    /// 64 lower-case hex digits.
    package static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy { isDigit($0) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
