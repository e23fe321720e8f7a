import Foundation
import Tether

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 that answers every request in one bad way, on blocking sockets and threads of
/// its own, and records what each connection cost it: the bytes it wrote and when the client closed.
final class MisbehavingServer: Sendable {
    enum Behaviour: Sendable {
        /// The status line and headers at once (`Content-Length: length`), then one body byte every `interval`.
        case dribbleBody(every: Duration, length: Int)
        /// The status line and headers themselves one byte every `interval`.
        case dribbleHeaders(every: Duration)
        /// A body that does not end before `bytes` (then the server closes the connection), written as fast as the
        /// client reads it: chunked, or with a `Content-Length` of `declaredLength`.
        case flood(declaredLength: Int?, bytes: Int = 256 << 20)
    }

    /// What one connection cost the server.
    struct Connection: Sendable {
        /// Body bytes written (accepted by the kernel) before a write failed.
        var bodyBytesWritten = 0
        /// When a write failed because the client had closed the connection.
        var closedAt: ContinuousClock.Instant?
    }

    struct SocketFailure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: errno \(code)" }
    }

    let port: Int
    private let listener: Int32
    private let behaviour: Behaviour
    private let connections = LockedState<[Connection]>([])

    /// `http://127.0.0.1:<port>/`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/slow")! }

    /// Starts listening on a port the system picks.
    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        #if canImport(Glibc)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw SocketFailure(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard bind(listener, address, length) == 0, listen(listener, 16) == 0 else { return false }
                return getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(listener)
            throw SocketFailure(call: "bind", code: code)
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting connections. Connections in progress end when their client closes.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// What each connection so far cost the server.
    var record: [Connection] { connections.withLock { $0 } }

    /// Waits (at most `timeout`) until the first connection's client has closed it; returns its record.
    func waitForClose(timeout: Duration = .seconds(5)) async throws -> Connection? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let first = record.first, first.closedAt != nil { return first }
            try await Task.sleep(for: .milliseconds(20))
        }
        return record.first
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let index = connections.withLock { connections in
                connections.append(Connection())
                return connections.count - 1
            }
            Thread.detachNewThread { [self] in
                serve(connection, index: index)
                close(connection)
            }
        }
    }

    private func serve(_ socket: Int32, index: Int) {
        guard readRequestHead(socket) else { return }
        switch behaviour {
        case .dribbleBody(let interval, let length):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
            guard write(socket, Array(head.utf8), index: index, isBody: false) else { return }
            for _ in 0..<length {
                Thread.sleep(forTimeInterval: Self.seconds(interval))
                guard write(socket, [UInt8(ascii: " ")], index: index, isBody: true) else { return }
            }
        case .dribbleHeaders(let interval):
            let padding = String(repeating: "x", count: 2000)
            for byte in "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: \(padding)\r\n".utf8 {
                guard write(socket, [byte], index: index, isBody: false) else { return }
                Thread.sleep(forTimeInterval: Self.seconds(interval))
            }
        case .flood(let declaredLength, let bytes):
            let framing = declaredLength.map { "Content-Length: \($0)" } ?? "Transfer-Encoding: chunked"
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\(framing)\r\n\r\n"
            guard write(socket, Array(head.utf8), index: index, isBody: false) else { return }
            let block = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
            let chunk = declaredLength == nil ? Array("10000\r\n".utf8) + block + Array("\r\n".utf8) : block
            var written = 0
            while written < bytes, write(socket, chunk, index: index, isBody: true) { written += chunk.count }
        }
    }

    /// Reads until the blank line that ends the request head.
    private func readRequestHead(_ socket: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer[0..<count]
        }
        return true
    }

    /// Writes all of `bytes`; on failure (the client closed) records when and returns `false`.
    private func write(_ socket: Int32, _ bytes: [UInt8], index: Int, isBody: Bool) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else {
                connections.withLock { $0[index].closedAt = .now }
                return false
            }
            offset += sent
            if isBody { connections.withLock { $0[index].bodyBytesWritten += sent } }
        }
        return true
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
