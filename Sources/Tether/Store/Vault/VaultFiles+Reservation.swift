import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension VaultFiles {
    /// Makes `path` a private file (mode 0600, never through a symbolic link) with at least `size` bytes allocated on
    /// disk, so that writing up to `size` bytes into it later needs no new space. An existing file is reused.
    ///
    /// Linux allocates with `posix_fallocate`; elsewhere zeros are written. On a copy-on-write file system (Btrfs,
    /// ZFS, APFS) an overwrite takes new blocks all the same, so the promise holds only on the others (ext4, XFS,
    /// tmpfs, HFS+).
    /// - Throws: ``CredentialStoreError/io`` with the `errno` (`ENOSPC`, `EDQUOT`, …) as its cause; a file this call
    ///   created is removed again.
    static func reserve(_ path: String, size: Int) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw symbolicLink(path) }
            throw failure("create", path, code: code)
        }
        defer { close(fd) }
        do {
            guard fchmod(fd, fileMode) == 0 else { throw failure("restrict the permissions of", path) }
            try allocate(fd, size: size, path: path)
        } catch {
            unlink(path)
            throw error
        }
    }

    private static func allocate(_ fd: Int32, size: Int, path: String) throws {
        #if canImport(Glibc)
        // posix_fallocate returns the error instead of setting errno.
        var result: Int32
        repeat {
            result = posix_fallocate(fd, 0, off_t(size))
        } while result == EINTR
        guard result == 0 else { throw failure("set aside space in", path, code: result) }
        #else
        let zeros = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress! + offset, size - offset, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("set aside space in", path)
            }
            offset += count
        }
        guard fsync(fd) == 0 else { throw failure("flush", path) }
        #endif
    }

    /// Writes `data` into the reserved file at `path` from its start, cuts it to `data`'s length and flushes it.
    /// - Returns: `false` when there is no such file (nothing reserved), so that the caller writes a new one.
    /// - Throws: ``CredentialStoreError/io`` when the file is there but cannot be written.
    static func overwriteReserved(_ path: String, with data: Data) throws -> Bool {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return false }
            if code == ELOOP { throw symbolicLink(path) }
            throw failure("open", path, code: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("inspect", path) }
        // Only a private file of this user may become a record.
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(path) is not a private file of the current user; it was left untouched"
            )
        }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let count = pwrite(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", path)
                }
                offset += count
            }
        }
        guard ftruncate(fd, off_t(data.count)) == 0 else { throw failure("cut", path) }
        guard fsync(fd) == 0 else { throw failure("flush", path) }
        return true
    }
}
