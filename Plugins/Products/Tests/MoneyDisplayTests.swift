import Testing

@testable import ProductsFeature

@Suite("Prices as customers read them")
struct MoneyDisplayTests {
    @Test(
        "A price shows its currency symbol, grouped units and two decimals",
        arguments: [
            (Money(amountInCents: 129_900, currency: "EUR"), "€1,299.00"),
            (Money(amountInCents: 500, currency: "USD"), "$5.00"),
            (Money(amountInCents: 1999, currency: "GBP"), "£19.99"),
            (Money(amountInCents: 7, currency: "EUR"), "€0.07"),
            (Money(amountInCents: 123_456_789, currency: "USD"), "$1,234,567.89"),
            (Money(amountInCents: -250, currency: "EUR"), "-€2.50"),
            (Money(amountInCents: 100_000, currency: "CHF"), "1,000.00 CHF"),
        ]
    )
    func displayText(price: Money, expected: String) {
        #expect(price.displayText == expected)
    }
}
