#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file as the core's `VaultFiles.readFile` does (never through a symbolic link), with its checks for
/// private files; any trouble is ``Outcome/failed``, which makes the launcher fall back to `tether-cli`, whose
/// own checks then report it.
enum PrivateFile {
    enum Outcome {
        case absent
        case read(Data)
        case failed
    }

    /// The whole file at `path`.
    /// - Parameter requirePrivate: Whether it must be a regular file owned by the effective user, with no
    ///   permission for group or others (a key file).
    static func read(_ path: String, requirePrivate: Bool) -> Outcome {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .absent : .failed }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failed }
        if requirePrivate, info.st_uid != geteuid() || info.st_mode & 0o077 != 0 { return .failed }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                LauncherIO.read(descriptor, into: $0.baseAddress, count: $0.count)
            }
            if count == 0 { return .read(result) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            result.append(contentsOf: buffer[0..<count])
        }
    }
}

/// The vault's folders, checked as the core's `VaultStore` checks them when it opens a vault only to read.
enum VaultFolders {
    /// Whether `home`, `home/records` and `home/locks` are private folders: each exists (the last may be missing),
    /// is a folder and not a symbolic link, is owned by the effective user and cannot be written by group or others.
    static func arePrivate(_ home: String) -> Bool {
        isPrivateFolder(home, mayBeMissing: false) && isPrivateFolder(home + "/records", mayBeMissing: false)
            && isPrivateFolder(home + "/locks", mayBeMissing: true)
    }

    private static func isPrivateFolder(_ path: String, mayBeMissing: Bool) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return mayBeMissing && errno == ENOENT }
        return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid() && info.st_mode & 0o022 == 0
    }
}
