extension Money {
    /// The price as a customer reads it: `€1,299.00`, `-$5.00`, or `1,000.00 CHF` for a currency without a symbol here.
    var displayText: String {
        let sign = amountInCents < 0 ? "-" : ""
        let units = String(amountInCents.magnitude / 100)
        let cents = amountInCents.magnitude % 100
        var grouped = ""
        for (index, digit) in units.enumerated() {
            if index > 0, (units.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        let number = "\(grouped).\(cents < 10 ? "0" : "")\(cents)"
        guard let symbol = Self.symbols[currency] else { return "\(sign)\(number) \(currency)" }
        return "\(sign)\(symbol)\(number)"
    }

    private static let symbols = ["EUR": "€", "USD": "$", "GBP": "£"]
}
