import LabelCore
import LabelWire

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

/// A product row as a page reads it: the bytes labeld's writer stored, unchanged since (the
/// row's digest says so), which an answer carries as they are; or the row decoded, as any
/// other row is (one from before digests, or changed by hand).
package enum ProductRow: Sendable {
  case written([UInt8])
  case stored(StoredRow<Product>)
}

/// A stored row's digest: 64 bits over the form's number and the row's bytes, eight at a
/// time (each step, xor a word then multiply by FNV's odd prime then fold the high half
/// down, cannot map two states to one, so changing any one word always changes it). It
/// is no defence against anyone (who can write the database can write a digest); it tells
/// bytes labeld wrote from bytes changed since, by hand or by a damaged file, and a row in
/// today's form from one in an older form.
package enum RowDigest {
  /// The form of the rows labeld writes. Bump it when `JSONWriter`'s form of a stored
  /// product changes (ProductPageTests pin a product's bytes): rows written in the old form
  /// then fail the check and are decoded and written afresh, as rows without one are.
  static let form: UInt64 = 1

  package static func of(_ bytes: [UInt8]) -> Int64 {
    bytes.withUnsafeBytes { raw in
      var hash: UInt64 = 0xCBF2_9CE4_8422_2325
      func mix(_ word: UInt64) {
        hash = (hash ^ word) &* 0x0000_0100_0000_01B3
        hash ^= hash >> 32
      }
      mix(form)
      var i = 0
      while i + 8 <= raw.count {
        mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
        i += 8
      }
      // The last bytes, and the length (so trailing zero bytes count).
      var tail = UInt64(raw.count) << 56
      var shift: UInt64 = 0
      while i < raw.count {
        tail ^= UInt64(raw[i]) << shift
        shift += 8
        i += 1
      }
      mix(tail)
      return Int64(bitPattern: hash)
    }
  }
}
