import LabelCore

/// JSON for rows, in the protocol's one form (`JSONWriter`, `JSONValue.parse`): our own
/// types always encode, so a failure is a programming error.
package enum RowCoding {
  package static func encode<T: Encodable>(_ value: T) -> [UInt8] {
    do {
      return try JSONWriter.write(value)
    } catch {
      preconditionFailure("cannot encode \(T.self): \(error)")
    }
  }

  /// A row's value, or the reason it cannot be read (for callers that must report it).
  package static func decoded<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
    let value = try JSONValue.parse(bytes)
    // A type that reads itself (a product: pages read them by the hundred) skips
    // `Decodable`'s containers; it accepts and refuses what they do.
    if let readable = T.self as? any JSONReadable.Type,
      let read = try readable.init(json: value) as? T
    {
      return read
    }
    return try LabelJSON.decode(type, from: value)
  }

  /// A stored row decoded, or why it cannot be (a damaged file, a hand edit, a row from a
  /// newer labeld): reported by the caller, never silently skipped.
  package static func row<T: Decodable & Sendable>(_ type: T.Type, key: String, _ bytes: [UInt8])
    -> StoredRow<T>
  {
    do {
      return .value(try decoded(type, bytes))
    } catch {
      return .unreadable(key: key, reason: "\(error)")
    }
  }
}

/// A row as read back from the database.
package enum StoredRow<T: Sendable>: Sendable {
  case value(T)
  /// The row is there but its JSON does not decode.
  case unreadable(key: String, reason: String)
}
