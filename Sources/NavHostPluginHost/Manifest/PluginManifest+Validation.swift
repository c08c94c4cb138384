extension PluginManifest {
    /// Checks every value against the format's rules.
    ///
    /// - Throws: ``PluginManifestError`` with code `invalidField` naming the first field at fault.
    public func validate() throws(PluginManifestError) {
        guard ManifestRules.isFeatureName(name) else {
            throw invalid("name", "\"\(name)\" is not a feature name: a letter, then letters and digits")
        }
        guard ManifestRules.isFileName(library), library.hasSuffix(".so") else {
            throw invalid("library", "\"\(library)\" is not the file name of a shared library, like libNameFeature.so")
        }
        guard ManifestRules.isSHA256(sha256) else {
            throw invalid("sha256", "expected 64 lower-case hex digits, found \"\(sha256)\"")
        }
        try validateRoutes()
        try validateDependencies()
        try Self.validateResources(resources, reserved: [Self.fileName, library])
    }

    /// Checks resource paths: relative, inside the plugin's folder, unique, and none of the `reserved` names.
    package static func validateResources(_ resources: [String], reserved: Set<String>) throws(PluginManifestError) {
        var seen: Set<String> = []
        for (index, resource) in resources.enumerated() {
            let field = "resources[\(index)]"
            guard ManifestRules.isResourcePath(resource) else {
                throw invalid(field, "\"\(resource)\" is not a relative path inside the plugin's folder")
            }
            guard !reserved.contains(resource) else {
                throw invalid(field, "\"\(resource)\" is the name of the manifest or the library")
            }
            guard seen.insert(resource).inserted else { throw invalid(field, "\"\(resource)\" is listed twice") }
        }
    }

    /// Checks dependencies: valid names, each once, not the plugin itself.
    package static func validateDependencies(_ dependencies: [Dependency], of name: String) throws(PluginManifestError)
    {
        var seen: Set<String> = []
        for (index, dependency) in dependencies.enumerated() {
            let field = "dependencies[\(index)].name"
            guard ManifestRules.isFeatureName(dependency.name) else {
                throw invalid(field, "\"\(dependency.name)\" is not a feature name")
            }
            guard dependency.name != name else { throw invalid(field, "a plugin cannot depend on itself") }
            guard seen.insert(dependency.name).inserted else {
                throw invalid(field, "\(dependency.name) is listed twice")
            }
        }
    }
}

// MARK: - Private Functions

extension PluginManifest {
    fileprivate func validateRoutes() throws(PluginManifestError) {
        guard !routes.isEmpty else { throw Self.invalid("routes", "a plugin offers at least one route") }
        var seen: Set<String> = []
        for (index, route) in routes.enumerated() {
            let field = "routes[\(index)]"
            guard ManifestRules.isRouteID(route.route) else {
                throw Self.invalid("\(field).route", "\"\(route.route)\" is not a route ID like namespace.name")
            }
            guard seen.insert(route.route).inserted else {
                throw Self.invalid("\(field).route", "\(route.route) is listed twice")
            }
            try Self.validateNames(route.parameters, field: "\(field).parameters")
            try Self.validateNames(route.intents, field: "\(field).intents")
        }
    }

    fileprivate func validateDependencies() throws(PluginManifestError) {
        try Self.validateDependencies(dependencies, of: name)
    }

    fileprivate static func validateNames(_ names: [String], field: String) throws(PluginManifestError) {
        var seen: Set<String> = []
        for (index, name) in names.enumerated() {
            guard ManifestRules.isIdentifier(name) else {
                throw invalid("\(field)[\(index)]", "\"\(name)\" is not a name of letters, digits and _")
            }
            guard seen.insert(name).inserted else { throw invalid("\(field)[\(index)]", "\(name) is listed twice") }
        }
    }

    fileprivate static func invalid(_ field: String, _ message: String) -> PluginManifestError {
        PluginManifestError(.invalidField, field: field, message)
    }

    fileprivate func invalid(_ field: String, _ message: String) -> PluginManifestError {
        Self.invalid(field, message)
    }
}
