#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a credential helper's caller wrote on standard input (git's `key=value` lines, docker's registry, Bazel's
/// request). The launcher reads it to answer; when it falls back, it hands the same bytes to `tether-cli` as its
/// standard input, so that the full tool reads exactly what the caller wrote.
struct StandardInput {
    /// The bytes read.
    let bytes: [UInt8]
    /// Whether the input ended (end of file) within the bytes read; `false` when the limit came first or reading
    /// failed.
    let complete: Bool

    /// Reads standard input to its end, or to one byte more than `limit` (the full tool's own limit: it refuses
    /// that input, and gets enough of it to say so).
    static func read(limit: Int) -> StandardInput {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let count = buffer.withUnsafeMutableBytes { LauncherIO.read(0, into: $0.baseAddress, count: wanted) }
            if count == 0 { return StandardInput(bytes: bytes, complete: true) }
            if count < 0 {
                if errno == EINTR { continue }
                return StandardInput(bytes: bytes, complete: false)
            }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return StandardInput(bytes: bytes, complete: false)
    }

    /// Makes standard input a file descriptor that reads `bytes`, then the end, for the program this process
    /// becomes (`execv`). Up to a pipe's capacity (64 KiB on Linux) a pipe; more goes through a file created in the
    /// vault's private folder and removed at once (its name is never seen again), which only this process can still read. Returns `false` when
    /// neither works.
    static func replace(with bytes: [UInt8], privateFolder: String) -> Bool {
        if bytes.count <= pipeCapacity {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { return false }
            let written = LauncherIO.writeAll(ends[1], bytes)
            close(ends[1])
            defer { close(ends[0]) }
            return written && dup2(ends[0], 0) == 0
        }
        var template = Array((privateFolder + "/.standard-input-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return LauncherIO.writeAll(descriptor, bytes) && lseek(descriptor, 0, SEEK_SET) == 0 && dup2(descriptor, 0) == 0
    }

    /// What a new pipe takes without a reader (Linux: 16 pages; Darwin starts at 16 KiB).
    #if os(Linux)
    static let pipeCapacity = 65_536
    #else
    static let pipeCapacity = 16_384
    #endif
}
