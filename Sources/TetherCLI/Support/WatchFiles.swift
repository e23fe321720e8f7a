import Foundation
import Tether
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes `tether watch` when a file in the folders it watches changes: `$TETHER_HOME` (`status.json`,
/// `connections.json`) and `$TETHER_HOME/records` (the vault's records), which other processes replace by a rename.
///
/// On Linux, through inotify: a wake-up follows a change within milliseconds, and a quiet watch costs nothing.
/// A folder that does not exist yet is looked for again each second. Elsewhere (and where inotify cannot be had)
/// it wakes every second and the caller compares; a kqueue watch on macOS would need a descriptor per record and
/// was not written, since it could not be compiled or tested here.
final class WatchFiles: Sendable {
    private let folders: [String]
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let stopped = LockedState(false)

    /// Watches `folders` from now on.
    init(folders: [String]) {
        self.folders = folders
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        Thread.detachNewThread { [self] in loop() }
    }

    /// Wake-ups: one after changes (several changes close together may give one), and one every 30 seconds.
    var changes: AsyncStream<Void> { stream }

    /// Ends ``changes``.
    func stop() {
        stopped.withLock { $0 = true }
        continuation.finish()
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    #if canImport(Glibc)
    private func loop() {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return pollLoop() }
        defer { close(fd) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE_SELF)
        var watched: [Int32: String] = [:]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !isStopped {
            // A folder that appeared (a first sign-in creates records/) is watched from then on.
            if watched.count < folders.count {
                for folder in folders where !watched.values.contains(folder) {
                    let descriptor = inotify_add_watch(fd, folder, mask)
                    if descriptor >= 0 { watched[descriptor] = folder }
                }
            }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, watched.count < folders.count ? 1_000 : 30_000)
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 { forgetRemovedFolders(buffer[0..<count], watched: &watched) }
            }
            // A timeout wakes the caller too: time alone can change a status (a refresh that was due).
            continuation.yield()
        }
    }

    /// Drops the watches of folders that were removed (`IN_IGNORED`), so that they are added again if they return.
    private func forgetRemovedFolders(_ events: ArraySlice<UInt8>, watched: inout [Int32: String]) {
        var offset = events.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= events.endIndex {
            let event = events[offset..<(offset + header)].withUnsafeBytes { $0.loadUnaligned(as: inotify_event.self) }
            if event.mask & UInt32(IN_IGNORED) != 0 { watched[event.wd] = nil }
            offset += header + Int(event.len)
        }
    }
    #else
    private func loop() { pollLoop() }
    #endif

    /// Wakes the caller every second.
    private func pollLoop() {
        while !isStopped {
            usleep(1_000_000)
            continuation.yield()
        }
    }
}
