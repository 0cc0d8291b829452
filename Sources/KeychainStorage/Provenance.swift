import Foundation

/// Which apps added and last modified an item, as the emulator records it.
///
/// Not an Apple attribute: iOS records nothing about which app wrote an item, and a device
/// keeps no such trail. The emulator keeps it in its own metadata so that guarded delete, the
/// audit journal and hazard reports can say whose items were lost; it is never returned
/// through SecItem (`kSecAttrCreator` is the caller's own number, see ``StoredItem/creator``).
public struct Provenance: Sendable, Hashable, Codable {
    /// The bundle ID of the app that added the item (``external`` for an item another Secret
    /// Service client wrote); nil when unknown (an item the previous layout kept with a
    /// caller's creator instead, later updated).
    public var addedBy: String?
    /// The bundle ID of the app that last updated it; nil when it was never updated through the
    /// emulator (or was last updated by a version that did not record it).
    public var modifiedBy: String?

    /// - Parameters: see the properties.
    public init(addedBy: String?, modifiedBy: String? = nil) {
        self.addedBy = addedBy
        self.modifiedBy = modifiedBy
    }

    /// What an item another Secret Service client wrote shows as its adder.
    public static let external = "external"

    /// The line every output that shows provenance carries, so nobody mistakes it for a
    /// device's record.
    public static let note = "provenance recorded by the emulator; a device keeps none"

    /// How ``addedBy`` is shown when unknown.
    public static let unknown = "(unknown)"

    /// The provenance a stored creator of the previous layout stands for: that layout filled
    /// the creator with the adding app's bundle ID (a string). A decimal number was a caller's
    /// `kSecAttrCreator` and is no provenance; anything else is the adder's bundle ID.
    public static func legacy(creator text: String) -> (creator: UInt32?, provenance: Provenance?) {
        if let number = UInt32(text) { return (number, nil) }
        return (nil, Provenance(addedBy: text))
    }
}
