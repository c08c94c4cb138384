import Foundation
import IntegrationHarness
import NavHostJSON

/// The inspector page open in ``HeadlessChromium``: what it shows, read through `Runtime.evaluate`.
struct InspectorPageDriver {
    let browser: HeadlessChromium
    /// The DevTools session attached to the page's target.
    let session: String

    /// Evaluates `expression` in the page.
    func evaluate(_ expression: String) async throws -> JSONValue {
        try await browser.evaluate(expression, session: session)
    }

    /// The text of the element with `id`; empty while it does not exist.
    func text(_ id: String) async throws -> String {
        let value = try await evaluate("(document.getElementById('\(id)') || {}).textContent || ''")
        return value.stringValue ?? ""
    }

    /// The routes of the stack's screens as the page lists them, root first.
    func stackRoutes() async throws -> [String] {
        let items = try await evaluate("[...document.querySelectorAll('#stack li')].map(li => li.textContent)")
        // Each item reads "s2  products.list" (and the route's parameters after it).
        return (items.arrayValue ?? []).compactMap { item in
            item.stringValue.flatMap { text in
                let words = text.split(separator: " ", omittingEmptySubsequences: true)
                return words.count >= 2 ? String(words[1]) : nil
            }
        }
    }

    /// Polls `condition` every 50 ms until it holds; fails with what the page showed when `limit` passes first.
    func waitUntil(
        _ what: String,
        within limit: Duration = .seconds(20),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let stack = (try? await text("stack")) ?? "?"
        let state = (try? await text("state")) ?? "?"
        let result = (try? await text("result")) ?? "?"
        let connection = (try? await text("connection")) ?? "?"
        throw TimedOut(
            what: "\(what); the page shows connection \"\(connection)\", stack \"\(stack)\", state \"\(state)\", "
                + "result \"\(result)\""
        )
    }

    /// Saves a PNG screenshot of the page at `path` and prints where.
    func screenshot(to path: String) async throws {
        let shot = try await browser.call("Page.captureScreenshot", ["format": "png"], session: session)
        guard let base64 = shot["data"]?.stringValue, let data = Data(base64Encoded: base64) else {
            throw HeadlessChromium.ProtocolError(description: "Page.captureScreenshot returned no image")
        }
        try data.write(to: URL(fileURLWithPath: path))
        print("inspector screenshot: \(path)")
    }
}
