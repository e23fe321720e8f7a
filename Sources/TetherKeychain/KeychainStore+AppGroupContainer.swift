import Foundation

extension KeychainStore {
    /// The shared container of the app group `identifier`, or `nil` when this process does not belong to it.
    ///
    /// Only Apple platforms have app groups; elsewhere there is none, and a shared lease needs its folder given.
    /// This branch was not compiled on the project's Linux machines.
    static func appGroupContainer(_ identifier: String) -> URL? {
        #if canImport(Security)
        return FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)
        #else
        return nil
        #endif
    }
}
