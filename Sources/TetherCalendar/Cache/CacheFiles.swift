import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations of the calendar cache that the vault's own do not cover.
enum CacheFiles {
    /// A failure of a system call, with its `errno`.
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let code: Int32
        var description: String { "Could not \(operation) a calendar cache file (errno \(code))" }
    }

    /// Replaces the file at `path` with `data` (mode 0600) through a temporary file and `rename`, without waiting
    /// for the disk: a reader sees the old bytes or the new ones, and after a crash the file may hold either, or be
    /// damaged. Only for what may be lost: an amendment (see ``CalendarCacheFormat/Amendment``).
    static func replaceWithoutFlush(_ path: String, with data: Data) throws {
        let temporary = path + ".tmp-" + String(UInt64.random(in: .min ... .max), radix: 16)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(operation: "create", code: errno) }
        var failure: Failure?
        if fchmod(fd, 0o600) != 0 { failure = Failure(operation: "restrict", code: errno) }
        data.withUnsafeBytes { buffer in
            var offset = 0
            while failure == nil, offset < buffer.count, let base = buffer.baseAddress {
                let count = write(fd, base + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(operation: "write", code: errno)
                } else {
                    offset += count
                }
            }
        }
        if close(fd) != 0, failure == nil { failure = Failure(operation: "close", code: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = Failure(operation: "rename", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// From this size on, `read(_:mapping:)` may map a file rather than copy it into a buffer.
    static let mappedSize = 64 * 1024

    /// The bytes of the file at `path`, read at once; `nil` when there is no file. A symbolic link is not followed.
    ///
    /// With `mapping`, on Linux, a file of ``mappedSize`` or more is mapped and every page of it read into the
    /// mapping before this returns (`MADV_POPULATE_READ`), which reports a page that cannot be read as an error
    /// here, as `read(2)` would, rather than as `SIGBUS` later. That saves the fresh buffer's page faults: an events
    /// file of a year's calendar (1.7 MB for 5,000 events) is in memory in 0.06 ms instead of 1 ms. It is for a
    /// process that lives a moment (a command): the mapped bytes are the file's for as long as the mapping lives,
    /// and the cache never changes a file in place (it writes a new one and renames it over), but another program
    /// could, and a page dropped under memory pressure is read from the file again. Where the kernel cannot
    /// populate a mapping (before Linux 5.14), the file is read into a buffer.
    static func read(_ path: String, mapping: Bool = false) throws -> Data? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(operation: "open", code: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(operation: "inspect", code: errno) }
        #if os(Linux)
        if mapping, info.st_size >= mappedSize, let mapped = try mapped(fd, size: Int(info.st_size)) { return mapped }
        #endif
        var data = Data(count: Int(info.st_size))
        var filled = 0
        var failure: Failure?
        data.withUnsafeMutableBytes { buffer in
            while failure == nil, filled < buffer.count, let base = buffer.baseAddress {
                let count = systemRead(fd, base + filled, buffer.count - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(operation: "read", code: errno)
                } else if count == 0 {
                    break
                } else {
                    filled += count
                }
            }
        }
        if let failure { throw failure }
        // A file that shrank while it was read ends where the reading ended.
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }
}

#if os(Linux)
extension CacheFiles {
    /// `MADV_POPULATE_READ` (Linux 5.14), which not every C library's headers name.
    private static let populateRead: Int32 = 22

    /// The file `fd` of `size` bytes, mapped and read in; `nil` when the kernel cannot populate a mapping, so that
    /// the caller reads the file instead.
    /// - Throws: ``Failure`` when a page of the file cannot be read.
    fileprivate static func mapped(_ fd: Int32, size: Int) throws -> Data? {
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        if madvise(base, size, populateRead) != 0 {
            let code = errno
            munmap(base, size)
            // EINVAL: a kernel without MADV_POPULATE_READ; ENOMEM, EAGAIN: read it the ordinary way instead.
            if code == EINVAL || code == ENOMEM || code == EAGAIN { return nil }
            throw Failure(operation: "read", code: code)
        }
        return Data(bytesNoCopy: base, count: size, deallocator: .unmap)
    }
}
#endif

/// `read(2)`, under a name the cache's own `read` does not hide.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}
