import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Log levels with their syslog priorities, so `journalctl -p` filters work.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
  case error = 3
  case warning = 4
  case notice = 5
  case info = 6
  case debug = 7

  public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

  public init?(name: String) {
    switch name.lowercased() {
    case "error": self = .error
    case "warning", "warn": self = .warning
    case "notice": self = .notice
    case "info": self = .info
    case "debug": self = .debug
    default: return nil
    }
  }
}

/// Where log lines go. The default writes `<N>message` lines to stderr (journald reads the
/// prefix as the priority); tests install a collecting sink.
public protocol LogSink: Sendable {
  func write(level: LogLevel, _ line: String)
}

/// Writes to stderr with journald priority prefixes.
public struct StderrSink: LogSink {
  public init() {}
  public func write(level: LogLevel, _ line: String) {
    let text = "<\(level.rawValue)>\(line)\n"
    _ = text.withCString { fputs($0, stderr) }
  }
}

/// Collects lines in memory, each with its level (tests).
public final class MemorySink: LogSink {
  private let entries = Mutex<[(level: LogLevel, line: String)]>([])
  public init() {}
  public func write(level: LogLevel, _ line: String) {
    entries.withLock { $0.append((level, line)) }
  }
  public var all: [String] { entries.withLock { $0.map(\.line) } }
  /// The lines written at `level`.
  public func lines(at level: LogLevel) -> [String] {
    entries.withLock { $0.filter { $0.level == level }.map(\.line) }
  }
}

/// A small value-type logger: messages are autoclosures, built only when the level is on.
/// Copies share one level, so a reload (SIGHUP) changes it everywhere at once.
public struct Logger: Sendable {
  private let sharedLevel: SharedLevel
  public var sink: any LogSink

  public var level: LogLevel {
    get { sharedLevel.value }
    nonmutating set { sharedLevel.value = newValue }
  }

  public init(level: LogLevel = .info, sink: any LogSink = StderrSink()) {
    self.sharedLevel = SharedLevel(level)
    self.sink = sink
  }

  private final class SharedLevel: Sendable {
    private let raw: Atomic<Int>
    init(_ level: LogLevel) { raw = Atomic(level.rawValue) }
    var value: LogLevel {
      get { LogLevel(rawValue: raw.load(ordering: .relaxed)) ?? .info }
      set { raw.store(newValue.rawValue, ordering: .relaxed) }
    }
  }

  @inline(__always)
  public func log(_ l: LogLevel, _ message: @autoclosure () -> String) {
    if l <= level { sink.write(level: l, Self.oneLine(message())) }
  }

  /// One message, one line: control characters (a newline in a name a peer sent) are
  /// written as escapes, so no one can start a line of their own, with a priority journald
  /// reads (`<3>`), in labeld's log.
  public static func oneLine(_ message: String) -> String {
    guard message.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return message }
    var out = ""
    out.reserveCapacity(message.utf8.count + 8)
    for scalar in message.unicodeScalars {
      switch scalar.value {
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x09: out += "\\t"
      case 0..<0x20, 0x7F:
        out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
  public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
  public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
  public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
  public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
  public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}
