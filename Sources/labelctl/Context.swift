import FoundationEssentials
import LabelCommandLine
import LabelCore
import LabelKit
import LabelPOSIX
import LabelWire

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// labelctl's exit statuses (sysexits.h where one fits).
enum ExitStatus: Int32 {
  case success = 0
  /// The daemon answered with an error, a job failed, or a local file could not be used.
  case failure = 1
  /// EX_USAGE: the command line is wrong.
  case usage = 64
  /// EX_UNAVAILABLE: the daemon cannot be reached, or went away.
  case unavailable = 69
}

/// Why a command did not succeed; `CLI` reports it and picks the exit status.
enum CommandError: Error {
  /// The command line is wrong in a way only found while running (exit 64).
  case usage(String)
  /// The daemon answered with an error (exit 1).
  case daemon(RPCError)
  /// labeld cannot be reached: not running (exit 69, with a hint how to start it), or this
  /// user may not open its socket (exit 69, saying which group to join).
  case unreachable(Unreachable)
  /// The daemon went away or stopped answering mid-conversation (exit 69).
  case disconnected(String)
  /// Anything else that failed (exit 1).
  case failed(String)

  init(_ error: LabelError) {
    switch error {
    case .unreachable(let u): self = .unreachable(u)
    case .connectionLost: self = .disconnected("labeld closed the connection")
    case .timeout: self = .disconnected("labeld did not answer in time")
    case .protocolViolation(let detail): self = .failed("unexpected reply from labeld: \(detail)")
    default: self = .failed(error.description)
    }
  }

  var status: ExitStatus {
    switch self {
    case .usage: return .usage
    case .daemon, .failed: return .failure
    case .unreachable, .disconnected: return .unavailable
    }
  }

  /// The lines written to stderr, each already prefixed with "labelctl: " where it is a
  /// message rather than a hint.
  var report: String {
    switch self {
    case .usage(let message): return "labelctl: \(message)"
    case .daemon(let e): return "labelctl: \(Self.describe(e))"
    case .unreachable(let u):
      guard case .notRunning = u.cause else { return "labelctl: \(u)" }
      return """
        labelctl: cannot reach labeld at \(u.path): \(u.detail)
        Start it with 'make run' (or 'labeld --simulate zebra=zpl'), or point --socket / \
        $LABELD_SOCKET at a running daemon.
        """
    case .disconnected(let message): return "labelctl: \(message)"
    case .failed(let message): return "labelctl: \(message)"
    }
  }

  /// "message (error code)", naming the offending field of an invalid-params error even
  /// when a daemon's message does not.
  static func describe(_ e: RPCError) -> String {
    var text = e.message
    if e.knownCode == .invalidParams, let field = e.data?["field"]?.stringValue,
      !field.isEmpty, !text.contains(field)
    {
      text += " [field \(field)]"
    }
    return "\(text) (error \(e.code))"
  }
}

/// What every command runs with: where the daemon is, how to print, and one connection
/// opened on first use (so a command's calls share it, as `print --wait` must).
final class Context {
  /// Where labeld is looked for, in order (`SocketPath.clientCandidates`).
  let socketPaths: [String]
  /// Where labeld answered, or (before a connection) where it is looked for first.
  var socketPath: String { client?.socketPath ?? socketPaths[0] }
  let json: Bool
  /// Whether stdout is a terminal (live progress lines instead of one line per change).
  let interactive: Bool
  private var client: BlockingConnection?

  init(socketPaths: [String], json: Bool, interactive: Bool) {
    self.socketPaths = socketPaths
    self.json = json
    self.interactive = interactive
  }

  /// The shared connection, opened on first use.
  func connection() throws(CommandError) -> BlockingConnection {
    if let client { return client }
    let opened = try reconnect()
    return opened
  }

  /// Drops the shared connection and opens a new one (after an overflow).
  func reconnect() throws(CommandError) -> BlockingConnection {
    client = nil
    do {
      let opened = try BlockingConnection(socketPaths: socketPaths)
      client = opened
      return opened
    } catch {
      throw CommandError(error)
    }
  }

  /// Calls `method` on the shared connection and returns its raw result.
  @discardableResult
  func call(_ method: Method, _ params: [String: JSONValue] = [:]) throws(CommandError)
    -> JSONValue
  {
    let client = try connection()
    let answer: Answer
    do {
      answer = try client.request(method.rawValue, .object(params))
    } catch {
      throw CommandError(error)
    }
    switch answer {
    case .success(let result): return result
    case .failure(let error): throw .daemon(error)
    }
  }

  /// The next notification on the shared connection, waiting as long as its timeout says.
  func nextNotification() throws(CommandError) -> (method: String, params: JSONValue) {
    let client = try connection()
    do {
      let n = try client.nextNotification()
      return (n.method, n.params)
    } catch {
      throw CommandError(error)
    }
  }

  /// Decodes a result (or notification) into a protocol type.
  func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(CommandError) -> T {
    do {
      return try LabelJSON.decode(type, from: value)
    } catch {
      throw .failed("unexpected reply from labeld: cannot read \(T.self): \(error)")
    }
  }

  /// The common shape of a command: call, then print either the raw result (`--json`) or
  /// `text` of the decoded result.
  func show<T: Decodable>(
    _ method: Method, _ params: [String: JSONValue] = [:], as type: T.Type,
    _ text: (T) -> String
  ) throws(CommandError) {
    let result = try call(method, params)
    if json {
      print(Output.json(result))
    } else {
      print(text(try decode(type, from: result)), terminator: "")
    }
  }
}

extension Context {
  /// How many items a list asks for at a time.
  static let pageSize = 500

  /// Every item of a list that pages (`products.list`, `templates.list`, `jobs.list`):
  /// pages of `pageSize` following `next`, with a progress line on stderr when it takes a
  /// while. The result is the whole list under `key`, as one unpaged call would answer.
  func allPages(_ method: Method, _ params: [String: JSONValue], key: String) throws(CommandError)
    -> JSONValue
  {
    var items: [JSONValue] = []
    var params = params
    params["limit"] = .int(Self.pageSize)
    let started = ContinuousClock.now
    var reported = false
    while true {
      let page = try call(method, params)
      items += page[key]?.arrayValue ?? []
      guard let next = page["next"] else { break }
      params["after"] = next
      if ContinuousClock.now - started > .seconds(1) {
        Output.progress("\rfetched \(items.count) \(key)…")
        reported = true
      }
    }
    if reported { Output.progress("\rfetched \(items.count) \(key).\n") }
    return .object([key: .array(items)])
  }

  /// `show` for a list that pages: every page, then one table (or `--json`).
  func showAll<T: Decodable>(
    _ method: Method, _ params: [String: JSONValue] = [:], key: String, as type: T.Type,
    _ text: (T) -> String
  ) throws(CommandError) {
    let result = try allPages(method, params, key: key)
    if json {
      print(Output.json(result))
    } else {
      print(text(try decode(type, from: result)), terminator: "")
    }
  }
}

/// Reads a file named on the command line; "-" is stdin. Up to 64 MiB, the largest
/// request labeld can be configured to take.
func readInput(_ path: String) throws(CommandError) -> [UInt8] {
  do {
    return path == "-"
      ? try PlainFile.read(descriptor: 0, name: "standard input", limit: 64 << 20)
      : try PlainFile.read(path, limit: 64 << 20)
  } catch {
    throw .failed("cannot read \(path): \(Output.reason(error))")
  }
}

/// Reads a JSON object from a file named on the command line ("-" is stdin).
func readJSONObject(_ path: String, what: String) throws(CommandError) -> JSONValue {
  let bytes = try readInput(path)
  let value: JSONValue
  do {
    value = try JSONValue.parse(bytes)
  } catch {
    throw .failed("\(path) is not valid JSON: \(error)")
  }
  guard case .object = value else {
    throw .failed("\(path) must hold a JSON object (\(what)), not a \(value.typeName)")
  }
  return value
}
