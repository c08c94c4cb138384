/// The cases of `type` with their raw values, in declaration order, when it is a `CaseIterable` enum with raw values;
/// `nil` for any other type.
///
/// Opens the `CaseIterable` existential once for the two that need an enum's values: ``JSONValueDecoder`` names them
/// when a value is refused, and the SDK's intent argument probe lists them.
package func enumCases<T>(of type: T.Type) -> [(value: T, rawValue: Any)]? {
    guard let iterable = type as? any CaseIterable.Type, let cases = enumCases(ofCasesOf: iterable) else { return nil }
    let typed = cases.compactMap { entry in (entry.value as? T).map { (value: $0, rawValue: entry.rawValue) } }
    return typed.count == cases.count ? typed : nil
}

private func enumCases<Cases: CaseIterable>(ofCasesOf type: Cases.Type) -> [(value: Any, rawValue: Any)]? {
    var cases: [(value: Any, rawValue: Any)] = []
    for value in Cases.allCases {
        guard let rawValue = (value as? any RawRepresentable)?.rawValue else { return nil }
        cases.append((value, rawValue))
    }
    return cases.isEmpty ? nil : cases
}
