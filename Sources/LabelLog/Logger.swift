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

/// Collects lines in memory (tests).
public final class MemorySink: LogSink {
  private let lines = Mutex<[String]>([])
  public init() {}
  public func write(level: LogLevel, _ line: String) { lines.withLock { $0.append(line) } }
  public var all: [String] { lines.withLock { $0 } }
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
    if l <= level { sink.write(level: l, message()) }
  }
  public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
  public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
  public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
  public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
  public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}
