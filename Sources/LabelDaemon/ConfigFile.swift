import Glibc
import LabelPOSIX

/// `labeld.conf`: one `key = value` per line, `#` starts a comment line, blank lines are
/// ignored. Keys are the long command-line options without `--` (`log-level = debug`);
/// a key given twice keeps the last value, except `simulate`, which adds a printer each
/// time. Values run to the end of the line (spaces around them are dropped; `#` inside a
/// value is part of it).
public struct ConfigFile: Sendable, Equatable {
  public struct Entry: Sendable, Equatable {
    public var key: String
    public var value: String
    public var line: Int
  }

  public let path: String
  public let entries: [Entry]

  /// Parses `text`; a line that is not `key = value` throws naming the line.
  public init(parsing text: String, path: String) throws(ConfigError) {
    self.path = path
    var entries: [Entry] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingSpaces
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let eq = line.firstIndex(of: "=") else {
        throw ConfigError(path: path, line: index + 1, "expected \"key = value\", got \"\(line)\"")
      }
      let key = line[..<eq].trimmingSpaces
      let value = line[line.index(after: eq)...].trimmingSpaces
      guard !key.isEmpty,
        key.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
      else {
        throw ConfigError(
          path: path, line: index + 1, "\"\(key)\" is not a key (lowercase-with-dashes)")
      }
      entries.append(Entry(key: key, value: value, line: index + 1))
    }
    self.entries = entries
  }

  /// Reads and parses the file at `path`.
  public init(contentsOf path: String) throws(ConfigError) {
    let bytes: [UInt8]
    do {
      bytes = try PlainFile.read(path, limit: 1 << 20)
    } catch {
      throw ConfigError(
        path: path, line: nil, "cannot read: \(String(cString: strerror(error.errno)))")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ConfigError(path: path, line: nil, "cannot read: it is not UTF-8 text")
    }
    try self.init(parsing: text, path: path)
  }
}

/// A configuration file that cannot be used, with where.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
  public var path: String
  public var line: Int?
  public var message: String
  public init(path: String, line: Int?, _ message: String) {
    self.path = path
    self.line = line
    self.message = message
  }
  public var description: String {
    line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
  }
}
