package import Foundation
package import HTTPTypes
import Tether

extension OAuthClient {
    /// Posts a form with client authentication.
    /// - Parameter clientIDInBody: Also name the client with `client_id` in the form when it authenticates with
    ///   HTTP Basic: RFC 6749 §3.2.1 lets a client identify itself so, and some servers want it at the device
    ///   authorization endpoint (RFC 8628 §3.1 requires it only from clients that do not authenticate).
    func post(
        _ endpoint: URL,
        form: [(String, String)],
        clientIDInBody: Bool = false
    ) async throws -> (
        HTTPResponse, Data
    ) {
        var request = HTTPRequest(method: .post, url: endpoint)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        var fields = form
        let secret = try clientSecretProvider?() ?? configuration.clientSecret
        switch configuration.clientAuthentication {
        case .secretBasic:
            let credentials =
                "\(FormEncoding.encode(configuration.clientID)):\(FormEncoding.encode(secret?.revealedValue ?? ""))"
            request.headerFields[.authorization] = "Basic \(Data(credentials.utf8).base64EncodedString())"
            if clientIDInBody { fields.append(("client_id", configuration.clientID)) }
        case .secretPost:
            fields.append(("client_id", configuration.clientID))
            if let secret { fields.append(("client_secret", secret.revealedValue)) }
        case .apiKey:
            // The key is in the endpoint URL; Google's APIs reject a `client_id` field they do not know.
            break
        default:
            // A public client names itself with `client_id` (RFC 6749 §3.2.1). A secret made per request (Sign in
            // with Apple's signed JWT, see AppleClientSecret) goes with it in the body, as Apple requires; a static
            // secret is never sent by a client configured as public.
            fields.append(("client_id", configuration.clientID))
            if let secret, clientSecretProvider != nil { fields.append(("client_secret", secret.revealedValue)) }
        }
        return try await send(request, body: FormEncoding.body(fields), endpoint: endpoint)
    }

    func send(_ request: HTTPRequest, body: Data?, endpoint: URL) async throws -> (HTTPResponse, Data) {
        let (response, data): (HTTPResponse, Data)
        do {
            (response, data) = try await transport.send(request, body: body)
        } catch let error as TransportError {
            throw OAuthError.transport.with(
                message: error.message,
                classification: RefreshError.Kind(FailureClassifier.classify(error)),
                cause: error
            )
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw OAuthError.transport.with(message: "The request to \(Self.redacted(endpoint)) failed", cause: error)
        }
        if response.status.kind == .redirection {
            throw OAuthError.redirected.with(
                message: "\(Self.redacted(endpoint)) answered \(response.status.code) with a redirect; "
                    + "check the endpoint URL (Tether never follows redirects for OAuth requests)",
                httpStatus: response.status.code
            )
        }
        return (response, data)
    }

    /// Turns an error response into a classified ``OAuthError``; `package` for the fuzz targets (Fuzz/TetherFuzz).
    package func errorResponse(_ response: HTTPResponse, _ body: Data, endpoint: URL) -> OAuthError {
        let status = response.status.code
        let verdict = FailureClassifier.classify(response, body: body)
        let retryAfter = FailureClassifier.retryAfter(response.headerFields)
        guard let error = ProviderErrorBody.parse(body) else {
            if JSONValue.object(from: body) == nil, !body.isEmpty {
                return Self.notJSON(response, body, endpoint: endpoint).with(retryAfter: retryAfter)
            }
            return OAuthError.unexpectedStatus.with(
                message: "\(Self.redacted(endpoint)) answered HTTP \(status)",
                classification: RefreshError.Kind(verdict),
                httpStatus: status,
                retryAfter: retryAfter
            )
        }
        return OAuthError(
            .provider,
            "\(error.code)\(error.detail.map { " (\($0))" } ?? "") from \(Self.redacted(endpoint)) (HTTP \(status))",
            classification: error.classification(verdict),
            errorCode: error.code,
            errorDescription: error.description,
            errorURI: error.uri,
            httpStatus: status,
            providerDetail: error.detail,
            retryAfter: retryAfter
        )
    }

    /// A body that is not the JSON the protocol requires. A `2xx` like that is transient, not a provider bug: a
    /// captive portal or a proxy's login page answered in the provider's place (see `FailureClassifier`).
    static func notJSON(_ response: HTTPResponse, _ body: Data, endpoint: URL) -> OAuthError {
        let status = response.status.code
        let contentType = response.headerFields[.contentType] ?? "no content type"
        let isJSON = contentType.lowercased().contains("json")
        return (isJSON ? OAuthError.malformedResponse : OAuthError.unexpectedContentType).with(
            message: "\(redacted(endpoint)) answered HTTP \(status) with \(isJSON ? "malformed JSON" : contentType)",
            classification: RefreshError.Kind(FailureClassifier.classify(response, body: body)),
            httpStatus: status
        )
    }

    /// Scheme, host and path of a URL, never its query.
    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        return components?.string ?? "?"
    }
}
