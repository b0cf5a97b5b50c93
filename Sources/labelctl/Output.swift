import FoundationEssentials
import LabelCommandLine
import LabelCore
import LabelPOSIX
import LabelWire

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Plain aligned columns under a header row, two spaces apart; the last column is not
/// padded so lines carry no trailing blanks.
struct Table {
  var header: [String]
  var rows: [[String]] = []

  init(_ header: String...) { self.header = header }

  mutating func add(_ row: String...) { rows.append(row) }

  var text: String {
    var widths = header.map(\.count)
    for row in rows {
      for (i, cell) in row.enumerated() where i < widths.count {
        widths[i] = max(widths[i], cell.count)
      }
    }
    func line(_ cells: [String]) -> String {
      var out = ""
      for (i, cell) in cells.enumerated() {
        if i == cells.count - 1 {
          out += cell
        } else {
          out += cell + String(repeating: " ", count: widths[i] - cell.count + 2)
        }
      }
      // An empty last cell must not leave the padding before it as trailing blanks.
      while out.hasSuffix(" ") { out.removeLast() }
      return out + "\n"
    }
    return ([header] + rows).map(line).joined()
  }
}

/// Text for the terminal and JSON for scripts.
enum Output {
  /// Pretty-printed with sorted keys and two-space indents: stable output a script or a
  /// diff can rely on. Written here rather than by JSONEncoder, whose pretty form puts a
  /// space before each colon and blank lines inside empty arrays.
  static func json(_ value: JSONValue) -> String {
    var out = ""
    writePretty(value, indent: "", into: &out)
    return out
  }

  private static func writePretty(_ value: JSONValue, indent: String, into out: inout String) {
    let inner = indent + "  "
    switch value {
    case .array(let items) where !items.isEmpty:
      out += "[\n"
      for (i, item) in items.enumerated() {
        out += inner
        writePretty(item, indent: inner, into: &out)
        out += i == items.count - 1 ? "\n" : ",\n"
      }
      out += indent + "]"
    case .object(let members) where !members.isEmpty:
      out += "{\n"
      let keys = members.keys.sorted()
      for (i, key) in keys.enumerated() {
        out += inner + compactJSON(.string(key)) + ": "
        writePretty(members[key] ?? .null, indent: inner, into: &out)
        out += i == keys.count - 1 ? "\n" : ",\n"
      }
      out += indent + "}"
    default:
      out += compactJSON(value)
    }
  }

  /// One line, sorted keys: for streams (`alerts --follow --json`), one object per line.
  static func compactJSON(_ value: JSONValue) -> String {
    var out = JSONOutput()
    value.write(to: &out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  /// Aligned "Label:  value" lines.
  static func fields(_ pairs: [(String, String)]) -> String {
    let width = (pairs.map { $0.0.count }.max() ?? 0) + 2
    return pairs.map { label, value in
      let head = label + ":"
      return head + String(repeating: " ", count: width - head.count + 1) + value + "\n"
    }.joined()
  }

  /// RFC 3339 in UTC, as the protocol sends it.
  static func time(_ date: Date) -> String {
    date.formatted(.iso8601)
  }

  static func reasons(_ reasons: [Reason]) -> String {
    reasons.isEmpty ? "-" : reasons.map(\.rawValue).joined(separator: ",")
  }

  /// "50.8x25.4 mm labels", "62 mm continuous".
  static func media(_ media: Media?) -> String {
    guard let media else { return "-" }
    if media.lengthMM == 0 {
      let kind = media.kind.map { $0 == "continuous" ? "" : " \($0)" } ?? ""
      return "\(number(media.widthMM)) mm continuous\(kind)"
    }
    let size = "\(number(media.widthMM))x\(number(media.lengthMM)) mm"
    return media.kind.map { "\(size) \($0)" } ?? size
  }

  /// 62 rather than 62.0.
  static func number(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }

  /// "12.50 EUR" (or "-").
  static func price(_ price: Decimal?, _ currency: String?) -> String {
    guard let price else { return "-" }
    return currency.map { "\(price) \($0)" } ?? "\(price)"
  }

  /// "2/5".
  static func progress(_ job: Job) -> String { "\(job.printed)/\(job.copies)" }

  /// "1 copy", "3 copies".
  static func copies(_ n: Int) -> String { n == 1 ? "1 copy" : "\(n) copies" }

  /// A job owner as people know them: the user's name, or the uid when the system has no
  /// name for it (labelctl runs on labeld's machine, so its names are labeld's).
  static func user(_ uid: UInt32) -> String { userName(uid) ?? String(uid) }

  /// "alice (uid 1000)", or "uid 1000" without a name.
  static func userAndUID(_ uid: UInt32) -> String {
    userName(uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
  }

  static func userName(_ uid: UInt32) -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid_t(uid), &entry, &buffer, buffer.count, &found) == 0, found != nil,
      let name = entry.pw_name
    else { return nil }
    return String(cString: name)
  }

  /// The uid of a user given by name or number; nil when there is no such user.
  static func uid(_ text: String) -> UInt32? {
    if let n = UInt32(text) { return n }
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwnam_r(text, &entry, &buffer, buffer.count, &found) == 0, found != nil else {
      return nil
    }
    return UInt32(entry.pw_uid)
  }

  /// The readable part of an error: a system call's errno in words, else its description.
  static func reason(_ error: any Error) -> String {
    if let e = error as? SystemError { return String(cString: strerror(e.errno)) }
    return String(describing: error)
  }

  /// Pushes out a line printed without a newline (progress on a terminal).
  static func flush() {
    // fflush(NULL) flushes stdout without naming the C global, which Swift 6 rejects as
    // shared mutable state.
    fflush(nil)
  }

  /// Writes to stderr (diagnostics and hints never go to stdout, which scripts read).
  static func error(_ text: String) {
    progress(text + "\n")
  }

  /// Writes `text` to stderr as it is (a progress line ends in "\r"); a stderr that
  /// cannot be written to loses it.
  static func progress(_ text: String) {
    try? PlainFile.write(Array(text.utf8), descriptor: 2, name: "standard error")
  }
}
