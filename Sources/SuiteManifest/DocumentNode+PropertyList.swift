import Foundation
import SharedKeychain

extension DocumentNode {
    /// Parses an XML or binary property list.
    static func parsePropertyList(_ data: Data) throws(DocumentSyntaxError) -> DocumentNode {
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw DocumentSyntaxError(reason: "not a property list (\((error as NSError).localizedDescription))")
        }
        do { try InputValidation.checkShape(of: plist, field: "the property list") } catch {
            throw DocumentSyntaxError(reason: error.message)
        }
        return DocumentNode(propertyList: plist)
    }

    private init(propertyList value: Any) {
        switch value {
        case let string as String:
            self.init(.string(string))
        case let array as [Any]:
            self.init(.list(array.map(DocumentNode.init(propertyList:))))
        case let dictionary as [String: Any]:
            let entries = dictionary.keys.sorted().compactMap { key in
                dictionary[key].map { (key: key, value: DocumentNode(propertyList: $0)) }
            }
            self.init(.dictionary(entries))
        case let data as Data:
            self.init(.other("data (\(data.count) bytes)"))
        case is Date:
            self.init(.other("a date"))
        case let bool as Bool:
            self.init(.boolean(bool))
        case let number as NSNumber:
            self.init(.number(number.stringValue))
        default:
            self.init(.other("\(type(of: value))"))
        }
    }
}
