package import Foundation
import Tether

/// A small JSON object in `$TETHER_HOME` with one entry per connection name, changed under a lock across
/// processes and replaced atomically. A file that does not read counts as empty.
package struct EntryFile<Entry: Codable & Sendable>: Sendable {
    package let url: URL
    package let home: URL
    private let lockName: String

    package init(home: URL, fileName: String) {
        self.home = home
        url = home.appendingPathComponent(fileName)
        lockName = fileName + ".lock"
    }

    /// The entries; none when the file does not exist or does not read (a symbolic link is not followed).
    package func load() -> [String: Entry] {
        guard let data = try? VaultFiles.readFile(url.path) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([String: Entry].self, from: data)) ?? [:]
    }

    /// The lock file in the vault's `locks` folder.
    private var lockPath: String { home.appendingPathComponent("locks").appendingPathComponent(lockName).path }

    /// Changes the entries under the lock and writes them back. Nothing is written when the lock cannot be taken
    /// (no `locks` folder, or a lock file that is a symbolic link): the file only informs `tether status`.
    package func update(_ change: (inout [String: Entry]) -> Void) {
        _ = try? VaultFiles.withExclusiveLock(lockPath) {
            var entries = load()
            change(&entries)
            write(entries)
        }
    }

    /// Removes the entry of `name`; writes nothing when there is none.
    package func remove(_ name: String) {
        // Most calls have nothing to remove: look before taking the lock.
        guard load()[name] != nil else { return }
        _ = try? VaultFiles.withExclusiveLock(lockPath) {
            var entries = load()
            guard entries.removeValue(forKey: name) != nil else { return }
            write(entries)
        }
    }

    /// Removes the entries of every name not in `names`; writes nothing when there is none.
    package func removeAll(except names: Set<String>) {
        guard load().keys.contains(where: { !names.contains($0) }) else { return }
        update { entries in entries = entries.filter { names.contains($0.key) } }
    }

    /// Replaces the file atomically with a new one of mode 0600 whatever the umask; a symbolic link in its place is
    /// replaced, never followed. No entries: no file (a signed-out or forgotten connection leaves none behind).
    private func write(_ entries: [String: Entry]) {
        if entries.isEmpty {
            _ = try? VaultFiles.remove(url.path)
            return
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(entries) else { return }
        try? VaultFiles.replaceFile(url.path, with: data, directory: home.path)
    }
}
