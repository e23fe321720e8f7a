import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// libsecret (the Secret Service client library of GNOME Keyring and KWallet), loaded at run time with `dlopen`, so
/// that building Tether never needs its headers and a machine without it simply has no Secret Service.
///
/// Only the non-variadic password calls are used (`secret_password_lookupv_sync` and its siblings): Swift cannot
/// call C variadic functions through a pointer. Attributes go in a `GHashTable` of C strings; the schema is laid
/// out in memory as libsecret's `SecretSchema` (see ``SchemaLayout``). Calls are serialized by a process-wide lock:
/// the synchronous calls each run a private main loop, and nothing is gained from running two at once.
package final class LibSecret: @unchecked Sendable {
    /// A failure reported through a `GError`: its domain's name, its code and its message (which libsecret and
    /// GDBus build from object paths and D-Bus names, never from a secret).
    package struct Failure: Error, Sendable {
        package let domain: String
        package let code: Int32
        package let message: String

        /// Whether the failure means that nothing provides the Secret Service on the bus (no keyring daemon, or no
        /// bus at all): the key source is then skipped rather than reported as unavailable.
        package var meansAbsent: Bool {
            switch domain {
            // G_DBUS_ERROR_SERVICE_UNKNOWN, _NAME_HAS_NO_OWNER, _NO_SERVER, _FILE_NOT_FOUND, _SPAWN_* (activation).
            case "g-dbus-error-quark": [2, 3, 11, 17].contains(code) || (27...36).contains(code)
            // No session bus to connect to (g_bus_get fails with G_IO_ERROR).
            case "g-io-error-quark": true
            default: false
            }
        }

        /// Whether libsecret says the item or collection is locked (`SECRET_ERROR_IS_LOCKED`).
        package var meansLocked: Bool { domain.hasPrefix("secret-error") && code == 2 }
    }

    private typealias LookupV =
        @convention(c) (
            UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutablePointer<CChar>?
    private typealias StoreV =
        @convention(c) (
            UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    private typealias ClearV =
        @convention(c) (
            UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    private typealias SearchV =
        @convention(c) (
            UnsafeRawPointer?, UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutableRawPointer?
    private typealias RetrievableAttributes = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    private typealias HashTableLookup =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> UnsafeMutableRawPointer?
    private typealias ListFreeFull = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    private typealias PasswordFree = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    private typealias ServiceGet =
        @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) ->
        UnsafeMutableRawPointer?
    private typealias CollectionForAlias =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UInt32, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutableRawPointer?
    private typealias CollectionLocked = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    private typealias ObjectUnref = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias HashTableNew =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    private typealias HashTableInsert =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias HashTableUnref = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias QuarkToString = @convention(c) (UInt32) -> UnsafePointer<CChar>?

    private let lookupv: LookupV
    private let storev: StoreV
    private let clearv: ClearV
    private let searchv: SearchV
    private let retrievableAttributes: RetrievableAttributes
    private let hashTableLookup: HashTableLookup
    private let listFreeFull: ListFreeFull
    private let passwordFree: PasswordFree
    private let serviceGet: ServiceGet
    private let collectionForAlias: CollectionForAlias
    private let collectionLocked: CollectionLocked
    private let objectUnref: ObjectUnref
    private let hashTableNew: HashTableNew
    private let hashTableInsert: HashTableInsert
    private let hashTableUnref: HashTableUnref
    private let errorFree: ErrorFree
    private let quarkToString: QuarkToString
    private let objectUnrefPointer: UnsafeMutableRawPointer
    private let stringHash: UnsafeMutableRawPointer
    private let stringEqual: UnsafeMutableRawPointer
    private let lock = NSLock()

    /// The library's file name; the `.0` is its ABI version, which every distribution ships.
    package static let libraryName = "libsecret-1.so.0"

    /// libsecret for this process, or `nil` when it is not installed.
    package static let shared: LibSecret? = load(libraryName)

    /// Loads libsecret from `name`. The library is never unloaded (GLib's types cannot be).
    /// - Returns: `nil` when the library or one of the functions is missing.
    package static func load(_ name: String) -> LibSecret? {
        #if canImport(Glibc)
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { return nil }
        return LibSecret(handle: handle)
        #else
        return nil
        #endif
    }

    private init?(handle: UnsafeMutableRawPointer) {
        #if canImport(Glibc)
        // dlsym on the library's handle also finds the GLib functions it depends on.
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let lookupv = symbol("secret_password_lookupv_sync", as: LookupV.self),
            let storev = symbol("secret_password_storev_sync", as: StoreV.self),
            let clearv = symbol("secret_password_clearv_sync", as: ClearV.self),
            let searchv = symbol("secret_password_searchv_sync", as: SearchV.self),
            let retrievableAttributes = symbol("secret_retrievable_get_attributes", as: RetrievableAttributes.self),
            let hashTableLookup = symbol("g_hash_table_lookup", as: HashTableLookup.self),
            let listFreeFull = symbol("g_list_free_full", as: ListFreeFull.self),
            let passwordFree = symbol("secret_password_free", as: PasswordFree.self),
            let serviceGet = symbol("secret_service_get_sync", as: ServiceGet.self),
            let collectionForAlias = symbol("secret_collection_for_alias_sync", as: CollectionForAlias.self),
            let collectionLocked = symbol("secret_collection_get_locked", as: CollectionLocked.self),
            let objectUnref = symbol("g_object_unref", as: ObjectUnref.self),
            let hashTableNew = symbol("g_hash_table_new", as: HashTableNew.self),
            let hashTableInsert = symbol("g_hash_table_insert", as: HashTableInsert.self),
            let hashTableUnref = symbol("g_hash_table_unref", as: HashTableUnref.self),
            let errorFree = symbol("g_error_free", as: ErrorFree.self),
            let quarkToString = symbol("g_quark_to_string", as: QuarkToString.self),
            let objectUnrefPointer = dlsym(handle, "g_object_unref"),
            let stringHash = dlsym(handle, "g_str_hash"),
            let stringEqual = dlsym(handle, "g_str_equal")
        else { return nil }
        self.lookupv = lookupv
        self.storev = storev
        self.clearv = clearv
        self.searchv = searchv
        self.retrievableAttributes = retrievableAttributes
        self.hashTableLookup = hashTableLookup
        self.listFreeFull = listFreeFull
        self.passwordFree = passwordFree
        self.serviceGet = serviceGet
        self.collectionForAlias = collectionForAlias
        self.collectionLocked = collectionLocked
        self.objectUnref = objectUnref
        self.hashTableNew = hashTableNew
        self.hashTableInsert = hashTableInsert
        self.hashTableUnref = hashTableUnref
        self.errorFree = errorFree
        self.quarkToString = quarkToString
        self.objectUnrefPointer = objectUnrefPointer
        self.stringHash = stringHash
        self.stringEqual = stringEqual
        #else
        return nil
        #endif
    }

    /// The lock state of the collection an alias names (`default`: where new items go).
    package enum CollectionState: Sendable, Equatable {
        /// No collection has that alias (a keyring daemon without a login keyring): nowhere to keep an item.
        case missing
        case locked
        case unlocked
    }

    /// Connects to the Secret Service and reports on the collection `alias` names.
    /// - Throws: ``Failure`` when the service cannot be reached or answers with an error.
    package func collectionState(alias: String) throws -> CollectionState {
        try lock.withLock {
            var error: UnsafeMutableRawPointer?
            guard let service = serviceGet(0, nil, &error) else { throw failure(error) }
            defer { objectUnref(service) }
            guard let collection = collectionForAlias(service, alias, 0, nil, &error) else {
                if error != nil { throw failure(error) }
                return .missing
            }
            defer { objectUnref(collection) }
            return collectionLocked(collection) != 0 ? .locked : .unlocked
        }
    }

    /// Looks up the secret of the item with `attributes` in `schema`.
    /// - Returns: The secret, or `nil` when there is no such item (or it could not be unlocked).
    package func lookup(_ schema: Schema, _ attributes: [String: String]) throws -> String? {
        try lock.withLock {
            try withAttributes(attributes) { table in
                var error: UnsafeMutableRawPointer?
                guard let secret = lookupv(schema.pointer, table, nil, &error) else {
                    if error != nil { throw failure(error) }
                    return nil
                }
                defer { passwordFree(secret) }
                return String(cString: secret)
            }
        }
    }

    /// Stores `secret` in the item with `attributes` (replacing its secret if it exists) in the collection `alias`
    /// names.
    package func store(
        _ schema: Schema,
        _ attributes: [String: String],
        secret: String,
        label: String,
        collection alias: String
    ) throws {
        try lock.withLock {
            try withAttributes(attributes) { table in
                var error: UnsafeMutableRawPointer?
                guard storev(schema.pointer, table, alias, label, secret, nil, &error) != 0 else {
                    throw failure(error)
                }
            }
        }
    }

    /// The value of the attribute `name` of every item that has `attributes` (locked items included; their secrets
    /// are not read).
    package func search(_ schema: Schema, _ attributes: [String: String], valuesOf name: String) throws -> [String] {
        try lock.withLock {
            try withAttributes(attributes) { table in
                var error: UnsafeMutableRawPointer?
                // SECRET_SEARCH_ALL: every match, not only the first.
                let list = searchv(schema.pointer, table, 1 << 1, nil, &error)
                if error != nil { throw failure(error) }
                guard let list else { return [] }
                defer { listFreeFull(list, objectUnrefPointer) }
                var values: [String] = []
                // GList: { gpointer data; GList *next; GList *prev; }
                var node: UnsafeMutableRawPointer? = list
                while let current = node {
                    let item = current.load(as: UnsafeMutableRawPointer?.self)
                    if let found = retrievableAttributes(item) {
                        if let value = hashTableLookup(found, name) {
                            values.append(String(cString: value.assumingMemoryBound(to: CChar.self)))
                        }
                        hashTableUnref(found)
                    }
                    node = current.load(
                        fromByteOffset: MemoryLayout<UnsafeRawPointer>.size,
                        as: UnsafeMutableRawPointer?.self
                    )
                }
                return values
            }
        }
    }

    /// Deletes the items with `attributes`.
    /// - Returns: Whether an item was deleted.
    @discardableResult
    package func clear(_ schema: Schema, _ attributes: [String: String]) throws -> Bool {
        try lock.withLock {
            try withAttributes(attributes) { table in
                var error: UnsafeMutableRawPointer?
                let removed = clearv(schema.pointer, table, nil, &error) != 0
                if error != nil { throw failure(error) }
                return removed
            }
        }
    }

    private func withAttributes<T>(
        _ attributes: [String: String],
        _ body: (UnsafeMutableRawPointer?) throws -> T
    )
        rethrows -> T
    {
        let table = hashTableNew(stringHash, stringEqual)
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer {
            hashTableUnref(table)
            for string in strings { free(string) }
        }
        for (name, value) in attributes {
            guard let name = strdup(name), let value = strdup(value) else { continue }
            strings += [name, value]
            _ = hashTableInsert(table, UnsafeMutableRawPointer(name), UnsafeMutableRawPointer(value))
        }
        return try body(table)
    }

    /// Reads and frees a `GError`: `{ GQuark domain; gint code; gchar *message; }`.
    private func failure(_ error: UnsafeMutableRawPointer?) -> Failure {
        guard let error else {
            return Failure(domain: "unknown", code: 0, message: "libsecret failed without an error")
        }
        defer { errorFree(error) }
        let domain = quarkToString(error.load(as: UInt32.self)).map { String(cString: $0) } ?? "unknown"
        let code = error.load(fromByteOffset: 4, as: Int32.self)
        let message = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
        return Failure(domain: domain, code: code, message: message)
    }

    /// A `SecretSchema` in memory, kept for the life of the process (libsecret keeps pointers to it).
    package final class Schema: @unchecked Sendable {
        let pointer: UnsafeRawPointer

        /// Lays out a schema of string attributes.
        /// - Parameters:
        ///   - name: The schema's name, stored in each item as `xdg:schema`.
        ///   - attributes: The attribute names (at most 32).
        package init(name: String, attributes: [String]) {
            precondition(attributes.count <= SchemaLayout.attributeCapacity)
            let memory = UnsafeMutableRawPointer.allocate(
                byteCount: SchemaLayout.size,
                alignment: MemoryLayout<UnsafeRawPointer>.alignment
            )
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: SchemaLayout.size)
            memory.storeBytes(of: UnsafeRawPointer(strdup(name)), as: UnsafeRawPointer?.self)
            // flags (SECRET_SCHEMA_NONE) stay 0; so does each attribute's type (SECRET_SCHEMA_ATTRIBUTE_STRING).
            for (index, attribute) in attributes.enumerated() {
                memory.storeBytes(
                    of: UnsafeRawPointer(strdup(attribute)),
                    toByteOffset: SchemaLayout.attributesOffset + index * SchemaLayout.attributeStride,
                    as: UnsafeRawPointer?.self
                )
            }
            pointer = UnsafeRawPointer(memory)
        }
    }
}

/// The layout of libsecret's `SecretSchema` on a 64-bit (LP64) system, from `secret-schema.h` (libsecret 0.20):
/// ```c
/// typedef struct { const gchar *name; SecretSchemaAttributeType type; } SecretSchemaAttribute;  // 16 bytes
/// typedef struct {
///     const gchar *name;                    // offset 0
///     SecretSchemaFlags flags;              // offset 8 (then 4 bytes of padding)
///     SecretSchemaAttribute attributes[32]; // offset 16
///     gint reserved;                        // offset 528 (then 4 bytes of padding)
///     gpointer reserved1 … reserved7;       // offsets 536 … 584
/// } SecretSchema;                           // 592 bytes
/// ```
private enum SchemaLayout {
    static let attributeCapacity = 32
    static let attributeStride = MemoryLayout<UnsafeRawPointer>.size * 2
    static let attributesOffset = MemoryLayout<UnsafeRawPointer>.size * 2
    package static let size =
        attributesOffset + attributeCapacity * attributeStride + 8 * MemoryLayout<UnsafeRawPointer>.size
}
