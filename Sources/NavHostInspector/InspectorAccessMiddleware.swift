internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

// MARK: - InspectorAccessMiddleware

/// Answers every request that ``InspectorAccess`` refuses with 401 (no token) or 403 (a wrong token, another
/// origin), and sets the token's cookie on the answer to a request that showed the token in its address.
struct InspectorAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The rules.
    let access: InspectorAccess

    // MARK: - Lifecycle

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch access.decide(Self.describe(request)) {
        case .granted(setCookie: false):
            return try await next(request, context)
        case .granted(setCookie: true):
            var response = try await next(request, context)
            response.setCookie(
                Cookie(
                    name: InspectorAccess.cookieName(host: request.head.authority),
                    value: access.token.value,
                    path: "/",
                    httpOnly: true,
                    sameSite: .strict
                )
            )
            return response
        case .missingToken:
            return Self.refusal(
                .unauthorized,
                "This inspector needs its token: open the address navctl inspect printed."
            )
        case .wrongToken:
            return Self.refusal(.forbidden, "Wrong token: open the address navctl inspect printed.")
        case .foreignOrigin:
            return Self.refusal(.forbidden, "Requests from other origins are refused.")
        case .foreignHost:
            return Self.refusal(.forbidden, "Open the inspector at 127.0.0.1, the address navctl inspect printed.")
        }
    }

    // MARK: - Public Functions

    /// What ``InspectorAccess`` looks at in `request`.
    static func describe(_ request: Request) -> InspectorAccess.Request {
        InspectorAccess.Request(
            target: request.head.path ?? "/",
            cookieHeader: request.headers[values: .cookie].joined(separator: "; "),
            origin: request.headers[.origin],
            host: request.head.authority
        )
    }
}

// MARK: - Private Functions

private extension InspectorAccessMiddleware {
    static func refusal(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: .init(string: text + "\n")))
    }
}
