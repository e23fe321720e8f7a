package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing wrappers over the POSIX calls a ``VaultStore`` makes, and that the package's other private files
/// (the calendar cache) share. Every failure becomes ``CredentialStoreError/io`` with the operation, the path and
/// the `errno` text; paths hold no secrets (record files are named after connection identifiers).
package enum VaultFiles {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    static func failure(_ operation: String, _ path: String, code: Int32 = errno) -> CredentialStoreError {
        let text = String(cString: strerror(code))
        return CredentialStoreError.io.with(
            message: "Could not \(operation) \(path): \(text)",
            cause: POSIXErrorCode(rawValue: code).map { POSIXError($0) }
        )
    }

    /// Creates a directory with mode 0700, or removes the read and search permissions of group and others from an
    /// existing one.
    ///
    /// An existing folder must be a real folder (not a symbolic link) owned by the current user that nobody else
    /// can write: in a shared folder such as `/tmp`, another user could otherwise have prepared it (or a link to a
    /// folder of theirs), or put files of theirs in it, such as a key. Such a folder is refused, never repaired:
    /// making it private would not remove what is already in it.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when `path` is a symbolic link, not a folder, owned
    ///   by another user or writable by group or others; ``CredentialStoreError/io`` when it cannot be created or
    ///   inspected.
    package static func makePrivateDirectory(_ path: String) throws {
        if mkdir(path, directoryMode) != 0 {
            let code = errno
            guard code == EEXIST else { throw failure("create the folder", path, code: code) }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure("inspect the folder", path) }
        try checkPrivateFolder(info, path: path)
        // Open without following a link swapped in since the lstat, and check that it is still the same folder.
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP || code == ENOTDIR { throw notPrivate(path, "was replaced while it was opened") }
            throw failure("open the folder", path, code: code)
        }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else { throw failure("inspect the folder", path) }
        guard opened.st_dev == info.st_dev, opened.st_ino == info.st_ino else {
            throw notPrivate(path, "was replaced while it was opened")
        }
        try checkPrivateFolder(opened, path: path)
        // mkdir applies the umask, which may also take bits from the owner; set the mode exactly. What is left to
        // take away here is harmless to take: others could read the folder, but not write to it (checked above).
        if opened.st_mode & 0o777 != directoryMode {
            guard fchmod(fd, directoryMode) == 0 else { throw failure("restrict the permissions of", path) }
        }
    }

    /// Checks an existing folder that is to hold private files, as ``makePrivateDirectory(_:)`` does, without
    /// creating it or changing its permissions: for callers that only read.
    /// - Returns: Whether the folder exists.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when `path` is a symbolic link, not a folder, owned
    ///   by another user or writable by group or others; ``CredentialStoreError/io`` when it cannot be inspected.
    package static func checkExistingPrivateDirectory(_ path: String) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return false }
            throw failure("inspect the folder", path, code: code)
        }
        try checkPrivateFolder(info, path: path)
        return true
    }

    /// Checks the `lstat` result of a folder that is to hold private files: a folder, not a symbolic link, owned
    /// by the effective user, not writable by group or others.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` naming the path and what is wrong.
    package static func checkPrivateFolder(_ info: stat, path: String, owner: uid_t = geteuid()) throws {
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            break
        case S_IFLNK:
            throw notPrivate(path, "is a symbolic link; use the folder it points to, or a real folder")
        default:
            throw notPrivate(path, "is not a folder")
        }
        guard info.st_uid == owner else {
            throw notPrivate(path, "is owned by user id \(info.st_uid), not by the current user (\(owner))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw notPrivate(
                path,
                "can be written by other users (mode \(octal(info.st_mode))), who could have put files in it; it was "
                    + "left untouched. Check what is in it, then run chmod 700 \(path)"
            )
        }
    }

    /// The permission bits of a mode in octal, such as `755`.
    static func octal(_ mode: mode_t) -> String {
        String(mode & 0o777, radix: 8)
    }

    static func notPrivate(_ path: String, _ problem: String) -> CredentialStoreError {
        CredentialStoreError.invalidConfiguration.with(message: "The private folder \(path) \(problem)")
    }

    /// Reads a whole file, never through a symbolic link.
    /// - Parameters:
    ///   - path: The file.
    ///   - requirePrivate: Whether the file must be a regular file owned by the current user that group and others
    ///     can neither read nor write, such as a key: one that another user could have planted, replaced or read
    ///     is refused, not repaired.
    /// - Returns: The bytes, or `nil` when the file does not exist.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when `path` is a symbolic link, or is not private
    ///   when `requirePrivate` is set; ``CredentialStoreError/io`` when it cannot be read.
    package static func readFile(_ path: String, requirePrivate: Bool = false) throws -> Data? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw symbolicLink(path) }
            throw failure("open", path, code: code)
        }
        defer { close(fd) }
        if requirePrivate {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw failure("inspect", path) }
            try checkPrivateFile(info, path: path)
        }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return result }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// Checks the `fstat` result of a file that must be private: a regular file, owned by the effective user, with
    /// no permission for group or others.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` naming the path and what is wrong.
    package static func checkPrivateFile(_ info: stat, path: String, owner: uid_t = geteuid()) throws {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(path) is not a regular file; it was not used and was left untouched"
            )
        }
        guard info.st_uid == owner else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(path) is owned by user id \(info.st_uid), not by the current user (\(owner)); it was "
                    + "not used and was left untouched"
            )
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(path) can be read or written by other users (mode \(octal(info.st_mode))); it was not "
                    + "used and was left untouched. If nobody else could have read or replaced it, run chmod 600 "
                    + "\(path)"
            )
        }
    }

    static func symbolicLink(_ path: String) -> CredentialStoreError {
        CredentialStoreError.invalidConfiguration.with(
            message: "\(path) is a symbolic link; it was not followed and was left untouched"
        )
    }

    /// Creates `path` (which must not exist) with mode 0600, writes `data` and flushes it to disk.
    static func writeNewFile(_ path: String, _ data: Data) throws {
        // O_EXCL already refuses an existing link; O_NOFOLLOW says so explicitly.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw failure("create", path) }
        do {
            // open applies the umask; set the mode exactly.
            guard fchmod(fd, fileMode) == 0 else { throw failure("restrict the permissions of", path) }
            try writeAll(fd, data, path)
            guard fsync(fd) == 0 else { throw failure("flush", path) }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(path)
            throw failure("close", path, code: code)
        }
    }

    private static func writeAll(_ fd: Int32, _ data: Data, _ path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let count = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", path)
                }
                offset += count
            }
        }
    }

    /// Flushes a folder's entries (after a rename, link or unlink) to disk.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open the folder", path) }
        defer { close(fd) }
        if let code = directorySyncFaults.withLock({ $0.removeValue(forKey: path) }) {
            throw failure("flush the folder", path, code: code)
        }
        guard fsync(fd) == 0 else { throw failure("flush the folder", path) }
    }

    /// Folders whose next `fsync` fails with the given `errno`, for tests of that failure.
    private static let directorySyncFaults = LockedState<[String: Int32]>([:])

    /// Makes the next `fsync` of the folder at `path` fail with `code`, as a failing disk would.
    package static func failNextDirectorySync(_ path: String, code: Int32 = EIO) {
        directorySyncFaults.withLock { $0[path] = code }
    }

    static func replace(_ source: String, with target: String) throws {
        guard rename(source, target) == 0 else { throw failure("move a new record into", target) }
    }

    /// Removes a file.
    /// - Returns: Whether a file was removed (`false` when it did not exist).
    @discardableResult
    package static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw failure("delete", path, code: code)
    }

    /// Hard-links `source` to `target`, which must not exist.
    /// - Returns: Whether the link was made; `false` when `target` already exists.
    static func link(_ source: String, to target: String) throws -> Bool {
        #if canImport(Glibc)
        let result = Glibc.link(source, target)
        #else
        let result = Darwin.link(source, target)
        #endif
        if result == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        throw failure("create", target, code: code)
    }

    /// Opens (creating it if needed) a lock file: never through a symbolic link, and with mode 0600 whatever the
    /// umask.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when `path` is a symbolic link or not a regular
    ///   file; ``CredentialStoreError/io`` when it cannot be opened.
    static func openLockFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw symbolicLink(path) }
            throw failure("open the lock file", path, code: code)
        }
        do {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw failure("inspect the lock file", path) }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw CredentialStoreError.invalidConfiguration.with(
                    message: "The lock file \(path) is not a regular file; it was left untouched"
                )
            }
            // open applies the umask, which may also take bits from the owner; set the mode exactly.
            if info.st_mode & 0o777 != fileMode {
                guard fchmod(fd, fileMode) == 0 else { throw failure("restrict the permissions of", path) }
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Runs `body` holding an exclusive `flock` on the lock file `path` (see ``openLockFile(_:)``), waiting for it
    /// as long as another process holds it.
    /// - Throws: What opening the lock file throws, ``CredentialStoreError/io`` when it cannot be locked, or what
    ///   `body` throws.
    package static func withExclusiveLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = try openLockFile(path)
        defer { unlockAndClose(fd) }
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            guard code == EINTR else { throw failure("lock", path, code: code) }
        }
        return try body()
    }

    /// Tries to take an exclusive `flock` without waiting.
    /// - Returns: Whether the lock was taken; `false` when another open file description holds it.
    static func tryLock(_ fd: Int32, _ path: String) throws -> Bool {
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK || code == EAGAIN { return false }
            throw failure("lock", path, code: code)
        }
    }

    static func unlockAndClose(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    /// A random suffix for temporary file names.
    static func randomSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Replaces the file at `path` with `data` atomically: writes a new private file beside it, flushes it, moves it
    /// over `path` and flushes the folder. A reader sees the old bytes or the new ones, never a mix.
    package static func replaceFile(_ path: String, with data: Data, directory: String) throws {
        let temporary = path + ".tmp-" + randomSuffix()
        try writeNewFile(temporary, data)
        do {
            try replace(temporary, with: path)
        } catch {
            _ = try? remove(temporary)
            throw error
        }
        try syncDirectory(directory)
    }
}
