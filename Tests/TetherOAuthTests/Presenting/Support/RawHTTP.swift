import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw-socket HTTP client for tests that act as the browser: it can send requests no real client would.
///
/// The blocking socket calls run on a Dispatch queue, off Swift concurrency's cooperative pool, and every
/// socket has 10-second send and receive timeouts.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A response: status code and everything after the head.
    struct Response {
        let status: Int
        let head: String
        let body: String
    }

    /// Sends a GET for `target` and reads the response to the end.
    static func get(_ target: String, port: UInt16) async throws -> Response {
        try await request(
            Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8),
            port: port
        )
    }

    /// Sends `bytes` on a new connection and reads the response until the server closes it.
    static func request(_ bytes: [UInt8], port: UInt16) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try sendBlocking(bytes, port: port) })
            }
        }
    }

    /// Whether connecting to `port` on 127.0.0.1 is refused (nothing listens there).
    static func isRefused(port: UInt16) -> Bool {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connectLoopback(fd, port: port) != 0 && errno == ECONNREFUSED
    }

    /// Opens a connection and leaves it open without sending anything, as browsers' speculative connections do.
    static func openIdleConnection(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0, connectLoopback(fd, port: port) == 0 else {
            throw Failure(description: "connect failed: \(errno)")
        }
        return fd
    }

    private static func sendBlocking(_ bytes: [UInt8], port: UInt16) throws -> Response {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) == 0 else { throw Failure(description: "connect failed: \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "send failed: \(errno)") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw Failure(description: "recv failed: \(errno)") }
            received += buffer[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no response head") }
        let head = String(text[..<split.lowerBound])
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line") }
        return Response(status: status, head: head, body: String(text[split.upperBound...]))
    }

    private static func connectLoopback(_ fd: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    #if canImport(Darwin)
    static let socketStream = SOCK_STREAM
    #else
    static let socketStream = Int32(SOCK_STREAM.rawValue)
    #endif
}
