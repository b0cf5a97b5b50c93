import LabelCore
import LabelWire

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Keeps an alert stream's position across restarts of the app: the seq up to which
/// every event has been handed out and handled.
public protocol AlertPositionStore: Sendable {
  /// The stored position; nil when nothing is stored yet (a fresh start). Throws when
  /// something is stored but cannot be read: never silently a fresh start.
  func load() throws -> UInt64?
  func save(_ seq: UInt64) throws
}

/// An `AlertPositionStore` in a small JSON file, `{"seq":N}`, written to a temporary file
/// beside it and renamed over it: it survives the app's crash (not a power cut, for it
/// is not synced). The Python kit's `resume_file` reads and writes the same format.
public struct FileAlertStore: AlertPositionStore {
  public let path: String

  public init(path: String) { self.path = path }

  public func load() throws -> UInt64? {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
      return nil
    }
    guard let value = try? JSONValue.parse([UInt8](data)), let seq = value["seq"]?.intValue,
      seq >= 0
    else {
      throw LabelError.storedPosition("\(path) holds no alert position ({\"seq\": N})")
    }
    return UInt64(seq)
  }

  public func save(_ seq: UInt64) throws {
    let text = "{\"seq\":\(seq)}\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
