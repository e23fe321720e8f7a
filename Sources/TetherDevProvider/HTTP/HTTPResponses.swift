import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Builders for the provider's JSON, HTML and redirect responses.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
enum HTTPResponses {
    static let pragma = HTTPField.Name("Pragma")!
    static let adminKey = HTTPField.Name("X-Tether-Admin")!

    /// A JSON response; `noStore` adds `Cache-Control: no-store` and `Pragma: no-cache`
    /// (RFC 6749 §5.1, for anything carrying tokens).
    static func json(
        _ body: JSONOutput,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:],
        noStore: Bool = false
    ) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if noStore {
            headers[.cacheControl] = "no-store"
            headers[pragma] = "no-cache"
        }
        let data = (try? body.encoded()) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An `application/x-www-form-urlencoded` response of a JSON object's string and number members, always
    /// `Cache-Control: no-store`.
    static func form(_ body: JSONOutput, status: HTTPResponse.Status = .ok) -> Response {
        guard case .object(let members) = body else { return json(body, status: status, noStore: true) }
        let text = members.sorted { $0.key < $1.key }.compactMap { name, value -> String? in
            let plain: String
            switch value {
            case .string(let string): plain = string
            case .int(let number): plain = String(number)
            case .bool(let flag): plain = flag ? "true" : "false"
            default: return nil
            }
            return "\(FormData.encode(name))=\(FormData.encode(plain))"
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[pragma] = "no-cache"
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: text.joined(separator: "&")))
        )
    }

    /// An HTML page.
    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// A 302 redirect.
    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }
}
