package import Foundation
import Logging

extension VaultStore {
    /// Where the vault lives when no folder is given: `$TETHER_HOME` when set and non-empty, else
    /// `$XDG_DATA_HOME/tether` when that is an absolute path (the XDG base directory specification ignores
    /// relative ones), else `$HOME/.local/share/tether`.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when none of them is set.
    package static func defaultDirectory(environment: [String: String]) throws -> URL {
        if let home = environment["TETHER_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("tether", isDirectory: true)
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local/share/tether", isDirectory: true)
        }
        throw CredentialStoreError.invalidConfiguration.with(
            message: "Cannot locate the vault folder: set TETHER_HOME, XDG_DATA_HOME or HOME"
        )
    }

    static let keyVariable = "TETHER_VAULT_KEY"
    static let keyFileName = "vault.key"

    static func createFolders(root: String) throws {
        let parent = (root as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw CredentialStoreError.io.with(message: "Could not create the folder \(parent)", cause: error)
            }
        }
        try VaultFiles.makePrivateDirectory(root)
        try VaultFiles.makePrivateDirectory(root + "/records")
        try VaultFiles.makePrivateDirectory(root + "/locks")
    }

    /// Checks the folders that exist as ``createFolders(root:)`` does, creating none and changing no permission:
    /// for a vault opened only to read.
    static func checkFolders(root: String) throws {
        guard try VaultFiles.checkExistingPrivateDirectory(root) else { return }
        _ = try VaultFiles.checkExistingPrivateDirectory(root + "/records")
        _ = try VaultFiles.checkExistingPrivateDirectory(root + "/locks")
    }

    static func environmentKey(_ environment: [String: String]) throws -> VaultKey? {
        guard let text = environment[keyVariable], !text.isEmpty else { return nil }
        do {
            return try VaultKey(base64: text)
        } catch {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "\(keyVariable) must be the base64 encoding of \(VaultKey.byteCount) bytes"
            )
        }
    }

    /// Reads the key file, or creates it without a race: the new key is written to a temporary file, flushed,
    /// and hard-linked to its final name, which fails if another process got there first; the loser then reads
    /// the winner's key. A reader therefore never sees a half-written key file.
    /// - Returns: The key; `nil` when there is none and `creates` is `false`.
    static func loadOrCreateKeyFile(
        root: String,
        keyringNote: String? = nil,
        creates: Bool = true,
        logger: Logger
    ) throws -> VaultKey? {
        let path = "\(root)/\(keyFileName)"
        if let key = try readKeyFile(path) { return key }
        // A key kept in the Secret Service elsewhere (a desktop session) is out of reach here: say so.
        let elsewhere = keyringNote.map { " (the Secret Service was not used: \($0))" } ?? ""
        try refuseNewKeyOverRecords(
            root: root,
            missing: "The key file \(path) is missing\(elsewhere)",
            restore: "Restore the key file (or set \(keyVariable) to the key)"
        )
        guard creates else { return nil }
        let key = VaultKey.generate()
        let temporary = "\(root)/.\(keyFileName).\(VaultFiles.randomSuffix()).tmp"
        try VaultFiles.writeNewFile(temporary, Data((key.revealedBase64 + "\n").utf8))
        defer { _ = try? VaultFiles.remove(temporary) }
        if try VaultFiles.link(temporary, to: path) {
            try VaultFiles.syncDirectory(root)
            logger.debug("Created vault key file", metadata: ["vault.directory": "\(root)"])
            return key
        }
        guard let winner = try readKeyFile(path) else {
            throw CredentialStoreError.io.with(message: "The key file \(path) disappeared while it was being created")
        }
        return winner
    }

    /// A new key cannot open records sealed with the old one: when the key is missing but records exist, creating a
    /// key would only hide the problem (and every later write would be refused over them).
    /// - Parameters:
    ///   - missing: What is missing, as the start of a sentence.
    ///   - restore: How to bring it back, as the start of a sentence.
    static func refuseNewKeyOverRecords(root: String, missing: String, restore: String) throws {
        let recordsPath = root + "/records"
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: recordsPath)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            // A vault opened only to read, whose folder was never made, holds nothing.
            return
        } catch {
            throw CredentialStoreError.io.with(message: "Could not list the records in \(recordsPath)", cause: error)
        }
        let records = entries.filter { !$0.hasPrefix(".") && $0.hasSuffix(recordSuffix) }
        guard !records.isEmpty else { return }
        throw CredentialStoreError.missingKey.with(
            message:
                "\(missing), but \(recordsPath) holds \(records.count) record(s) sealed with a key; they were left "
                + "untouched. \(restore), or delete the files in \(recordsPath) to start over and sign in again"
        )
    }

    /// Reads a key file, which must be private to the current user (see ``VaultFiles/checkPrivateFile(_:path:owner:)``):
    /// a key file that another user could have planted, replaced or read is refused, never used.
    /// - Returns: The key, or `nil` when the file does not exist.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the file is a symbolic link, not private, or
    ///   not the base64 encoding of 32 bytes; ``CredentialStoreError/io`` when it cannot be read.
    package static func readKeyFile(_ path: String) throws -> VaultKey? {
        guard let bytes = try VaultFiles.readFile(path, requirePrivate: true) else { return nil }
        guard let text = String(data: bytes, encoding: .utf8), let key = try? VaultKey(base64: text) else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The key file \(path) does not hold the base64 encoding of \(VaultKey.byteCount) bytes; "
                    + "it was left untouched"
            )
        }
        return key
    }
}
