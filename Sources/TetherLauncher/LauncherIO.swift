#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The launcher's reads and writes of file descriptors, straight to the system calls (no Foundation file handles,
/// which would cost start-up time).
enum LauncherIO {
    /// `read(2)`: the bytes read, 0 at the end, -1 on an error (`errno` set).
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// Writes all of `bytes`, again after a write cut short or interrupted; `false` when a write fails.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
