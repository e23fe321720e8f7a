package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small tmpfs mounted for one test, to run out of space for real. Mounting needs root (or `CAP_SYS_ADMIN`); where
/// it cannot be had, ``isAvailable`` is false and the tests that need it do not run (`.enabled(if:)`), which the test
/// log records as skipped.
package final class TmpfsMount: Sendable {
    /// The mount point.
    package let directory: URL
    private var filler: String { directory.path + "/.filler" }

    /// Whether a tmpfs can be mounted here (Linux, as root).
    package static let isAvailable: Bool = {
        #if os(Linux)
        guard geteuid() == 0, let probe = try? TmpfsMount(size: 64 * 1024) else { return false }
        probe.unmount()
        return true
        #else
        return false
        #endif
    }()

    /// Mounts a tmpfs of `size` bytes on a new temporary folder.
    package init(size: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let status = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", directory.path])
        guard status == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw ChildProcess.Failure(description: "mount -t tmpfs failed with status \(status)")
        }
    }

    /// Fills the file system until a write fails with `ENOSPC`.
    /// - Returns: The bytes written.
    @discardableResult
    package func fill() -> Int {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x5A, count: 1024)
        var written = 0
        while true {
            let count = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            return written
        }
    }

    /// Frees what ``fill()`` took, and waits (up to 5 s) until the file system says so: a child process that another
    /// test forked while the filler was open holds it until its `exec`.
    package func free() {
        unlink(filler)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var info = statvfs()
            if statvfs(directory.path, &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_bsize) >= 64 * 1024 { return }
            usleep(10_000)
        }
    }

    /// Unmounts the file system and removes the mount point.
    package func unmount() {
        _ = Self.run("/bin/umount", ["-l", directory.path])
        rmdir(directory.path)
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        SpawnedProcess.status(of: [executable] + arguments) ?? -1
    }
}
