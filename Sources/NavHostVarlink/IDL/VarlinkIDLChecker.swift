/// Checks that a parsed interface holds together: unique names, and type names that resolve.
struct VarlinkIDLChecker {
    let interface: VarlinkInterface
    let parser: VarlinkIDLParser

    func check() throws(VarlinkIDLError) {
        var seen: Set<String> = []
        for member in interface.members {
            guard seen.insert(member.name).inserted else {
                throw problem(.duplicateName, "\"\(member.name)\" is declared twice", near: member.name)
            }
        }
        for member in interface.members {
            switch member {
            case .type(let declaration):
                try check(declaration.type, in: declaration.name)
            case .method(let method):
                try check(fields: method.input, in: method.name)
                try check(fields: method.output, in: method.name)
            case .error(let error):
                try check(fields: error.parameters, in: error.name)
            }
        }
    }

    private func check(_ type: VarlinkType, in owner: String) throws(VarlinkIDLError) {
        switch type {
        case .bool, .int, .float, .string, .object, .any:
            return
        case .named(let name):
            guard interface.types[name] != nil else {
                throw problem(
                    .unknownType,
                    "\(owner) refers to \"\(name)\", which is not a type of the interface",
                    near: name
                )
            }
        case .structure(let fields):
            try check(fields: fields, in: owner)
        case .enumeration(let names):
            var seen: Set<String> = []
            for name in names where !seen.insert(name).inserted {
                throw problem(.duplicateName, "\(owner) lists the enumeration value \"\(name)\" twice", near: owner)
            }
        case .array(let element), .map(let element), .optional(let element):
            try check(element, in: owner)
        }
    }

    private func check(fields: [VarlinkField], in owner: String) throws(VarlinkIDLError) {
        var seen: Set<String> = []
        for field in fields {
            guard seen.insert(field.name).inserted else {
                throw problem(.duplicateName, "\(owner) has two fields named \"\(field.name)\"", near: owner)
            }
            try check(field.type, in: owner)
        }
    }

    private func problem(_ code: VarlinkIDLError.Code, _ message: String, near word: String) -> VarlinkIDLError {
        parser.location(of: code, message, at: parser.offset(ofWord: word))
    }
}
