public import SecItemShim

// The four SecItem functions, routed to the task's current simulator (`KeychainSimulator.current`).
// Signatures match Apple's, so `SecItemAdd(query as CFDictionary, nil)` compiles on both.

/// Adds an item to the current ``KeychainSimulator``.
/// - Parameters:
///   - attributes: The item's class, attributes and data.
///   - result: Receives the item's data or attributes when the dictionary asks for them.
/// - Returns: `errSecSuccess`, or why the item was not added.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let (status, value) = KeychainSimulator.current.perform(.add) { try $0.add(attributes) }
    result?.pointee = value
    return status
}

/// Finds items in the current ``KeychainSimulator``.
/// - Parameters:
///   - query: The class, attributes to match, match limit and return types.
///   - result: Receives `Data`, an attribute dictionary, or an array of dictionaries, as Apple returns them.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, or why the search failed.
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let (status, value) = KeychainSimulator.current.perform(.copyMatching) { try $0.copyMatching(query) }
    result?.pointee = value
    return status
}

/// Changes every item in the current ``KeychainSimulator`` that matches a query.
/// - Parameters:
///   - query: The class and attributes to match.
///   - attributesToUpdate: The new attribute values and data.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, or why nothing was changed.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    KeychainSimulator.current.perform(.update) { try $0.update(query, with: attributesToUpdate) }.0
}

/// Deletes every item in the current ``KeychainSimulator`` that matches a query.
/// - Parameter query: The class and attributes to match.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, or why nothing was deleted.
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    KeychainSimulator.current.perform(.delete) { try $0.delete(query) }.0
}
