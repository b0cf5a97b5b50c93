import CCUPS
import Dispatch
import LabelConcurrency
import LabelCore

/// A client of the CUPS server: every libcups call runs on this client's own serial
/// Dispatch queue, never on Swift's cooperative pool, over one connection it owns.
///
/// The server is whatever libcups is configured for: `CUPS_SERVER` first, like every CUPS
/// client. A failed connection is dropped and made again on the next call, so a restarted
/// cupsd is picked up without anything else noticing.
///
/// `@unchecked Sendable`: the only mutable state, `connection`, is touched only by blocks
/// running on `queue`, which is serial.
public final class CUPSClient: @unchecked Sendable {
  private let queue: BlockingQueue
  private var connection: HTTPConnection?
  private let connectTimeoutMS: Int32
  private let ioTimeout: Double

  /// `label` names the queue (debuggers and `ps -L` show it).
  public init(label: String, connectTimeoutMS: Int32 = 3000, ioTimeout: Double = 10) {
    queue = BlockingQueue(label: "labeld.cups.\(label)")
    self.connectTimeoutMS = connectTimeoutMS
    self.ioTimeout = ioTimeout
  }

  /// The server libcups is configured for (`CUPS_SERVER`, client.conf or the default).
  public static var server: String {
    do { try CUPSLibrary.require() } catch { return "(unknown: \(error.message))" }
    return String(cString: cupsServer())
  }

  /// Runs `body` on the client's queue with a live connection. A connection failure drops
  /// the connection so that the next call reconnects.
  private func run<T: Sendable>(
    _ body: @escaping @Sendable (HTTPConnection) throws(CUPSError) -> T
  ) async throws(CUPSError) -> T {
    try await queue.run { [self] () throws(CUPSError) -> T in
      do throws(CUPSError) {
        let http: HTTPConnection
        if let open = connection {
          http = open
        } else {
          http = try HTTPConnection(timeoutMS: connectTimeoutMS, ioTimeout: ioTimeout)
          connection = http
        }
        return try body(http)
      } catch {
        if error.isConnectionFailure { connection = nil }
        throw error
      }
    }
  }

  /// Sends `request` and returns the response, or the error libcups recorded.
  private static func send(_ request: IPPHandle, _ http: HTTPConnection, resource: String = "/")
    throws(CUPSError) -> IPPHandle
  {
    let response = IPPHandle(response: cupsDoRequest(http.raw, request.release(), resource))
    let error = CUPSError.last()
    guard let response, error.status.isSuccess else { throw error }
    return response
  }

  private static func printerURI(_ queue: String) -> String {
    "ipp://localhost/printers/\(queue)"
  }

  private static func request(_ op: ipp_op_t) -> IPPHandle {
    let request = IPPHandle(request: op)
    request.add(name: "requesting-user-name", String(cString: cupsUser()))
    return request
  }

  // MARK: printers

  /// The names of the server's queues (`cupsGetDests2`: local and shared queues the server
  /// knows; no DNS-SD browsing, so no dependency on avahi). Instances are left out.
  public func queueNames() async throws(CUPSError) -> [String] {
    try await run { http throws(CUPSError) in
      var dests: UnsafeMutablePointer<cups_dest_t>?
      let count = cupsGetDests2(http.raw, &dests)
      let list = DestList(dests, count: count)
      if count == 0 {
        let error = CUPSError.last()
        if !error.status.isSuccess && error.status != .notFound { throw error }
      }
      return list.names
    }
  }

  static let printerAttributes = [
    "printer-name", "printer-state", "printer-state-reasons", "printer-state-message",
    "printer-make-and-model", "printer-info", "device-uri", "printer-device-id",
    "printer-is-accepting-jobs", "media-ready", "media-default",
  ]

  /// One queue's attributes (Get-Printer-Attributes); `notFound` for an unknown queue.
  public func queue(_ name: String) async throws(CUPSError) -> CUPSQueue {
    try await run { http throws(CUPSError) in
      let request = Self.request(IPP_OP_GET_PRINTER_ATTRIBUTES)
      request.add(uri: "printer-uri", Self.printerURI(name))
      request.requestAttributes(Self.printerAttributes)
      let r = try Self.send(request, http)
      var q = CUPSQueue(name: name)
      q.makeAndModel = r.string("printer-make-and-model") ?? ""
      q.info = r.string("printer-info") ?? ""
      q.deviceURI = r.string("device-uri") ?? ""
      q.deviceID = r.string("printer-device-id") ?? ""
      q.state = r.integer("printer-state").flatMap(CUPSPrinterState.init(rawValue:)) ?? .idle
      q.reasons = r.strings("printer-state-reasons").filter { $0 != "none" }
      q.message = r.string("printer-state-message") ?? ""
      q.accepting = r.boolean("printer-is-accepting-jobs") ?? true
      q.media = r.strings("media-ready")
      if q.media.isEmpty { q.media = r.strings("media-default") }
      return q
    }
  }

  // MARK: jobs

  /// Submits `bytes` as one raw job: create job → start document (`CUPS_FORMAT_RAW`) →
  /// write → finish. Returns the CUPS job id. `title` becomes the job's `job-name`; the
  /// document is named `documentName(title)`.
  public func submitRaw(queue name: String, title: String, bytes: [UInt8])
    async throws(CUPSError) -> Int
  {
    try await run { http throws(CUPSError) in
      guard let dest = Dest(cupsGetNamedDest(http.raw, name, nil)) else {
        let error = CUPSError.last()
        throw error.status.isSuccess
          ? CUPSError(status: .notFound, message: "no CUPS queue named \(name)") : error
      }
      guard let info = DestInfo(cupsCopyDestInfo(http.raw, dest.raw)) else {
        throw CUPSError.last()
      }
      var jobID: Int32 = 0
      let created = IPPStatus(
        cupsCreateDestJob(http.raw, dest.raw, info.raw, &jobID, title, 0, nil))
      guard created.isSuccess, jobID > 0 else { throw CUPSError.last() }
      let started = cupsStartDestDocument(
        http.raw, dest.raw, info.raw, jobID, Self.documentName(title), ccups_format_raw(), 0,
        nil, 1)
      guard started == HTTP_STATUS_CONTINUE else {
        let error = CUPSError.last()
        _ = cupsCancelDestJob(http.raw, dest.raw, jobID)
        throw error
      }
      let written = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) {
          cupsWriteRequestData(http.raw, $0.baseAddress, $0.count)
        }
      }
      let finished = IPPStatus(cupsFinishDestDocument(http.raw, dest.raw, info.raw))
      guard written == HTTP_STATUS_CONTINUE, finished.isSuccess else {
        let error = CUPSError.last()
        throw CUPSError(
          status: error.status.isSuccess ? .internalError : error.status,
          message: "job \(jobID): sending the document failed: \(error.message)")
      }
      return Int(jobID)
    }
  }

  /// The `document-name` sent for a job titled `title`: the title with every character
  /// outside `A-Z a-z 0-9 . _ -` replaced by `_`.
  ///
  /// Why: cupsd 2.4.2-3+deb12u10 (Debian 12's security update of November 2026) crashes
  /// with SIGSEGV when it starts a job whose `document-name` contains white space (measured:
  /// "a b", " ab", "ab ", a tab; `a%20b`, `a/b`, `a-b_c.d` and no document name are fine;
  /// `job-name` with spaces is fine). `lp` names the document after its file, which is why
  /// it kept working. Details in docs/architecture.md, "The CUPS transport".
  public static func documentName(_ title: String) -> String {
    String(
      String.UnicodeScalarView(
        title.unicodeScalars.map { c in
          switch c {
          case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": c
          default: "_"
          }
        }))
  }

  static let jobAttributes = [
    "job-id", "job-name", "job-state", "job-state-reasons", "job-printer-state-message",
  ]

  private static func job(_ g: IPPGroup) -> CUPSJob? {
    guard let id = g.integer("job-id"),
      let state = g.integer("job-state").flatMap(CUPSJobState.init(rawValue:))
    else { return nil }
    var job = CUPSJob(id: id, state: state)
    job.name = g.string("job-name") ?? ""
    job.reasons = (g.values["job-state-reasons"] ?? []).filter { $0 != "none" }
    job.printerMessage = g.string("job-printer-state-message") ?? ""
    return job
  }

  /// One job's state (Get-Job-Attributes); `notFound` once CUPS forgot it.
  public func job(_ id: Int) async throws(CUPSError) -> CUPSJob {
    try await run { http throws(CUPSError) in
      let request = Self.request(IPP_OP_GET_JOB_ATTRIBUTES)
      request.add(uri: "job-uri", "ipp://localhost/jobs/\(id)")
      request.requestAttributes(Self.jobAttributes)
      let r = try Self.send(request, http)
      guard let job = r.groups(IPP_TAG_JOB, Self.job).compactMap({ $0 }).first else {
        throw CUPSError(status: .notFound, message: "CUPS returned no attributes for job \(id)")
      }
      return job
    }
  }

  /// Every job of a queue CUPS still remembers, finished ones included (Get-Jobs,
  /// which-jobs=all).
  public func jobs(queue name: String) async throws(CUPSError) -> [CUPSJob] {
    try await run { http throws(CUPSError) in
      let request = Self.request(IPP_OP_GET_JOBS)
      request.add(uri: "printer-uri", Self.printerURI(name))
      request.add(keyword: "which-jobs", "all")
      request.requestAttributes(Self.jobAttributes)
      let r = try Self.send(request, http)
      return r.groups(IPP_TAG_JOB, Self.job).compactMap { $0 }
    }
  }

  /// Cancels a job (Cancel-Job). Cancelling a job that already ended is not an error.
  public func cancel(job id: Int) async throws(CUPSError) {
    try await run { http throws(CUPSError) in
      let request = Self.request(IPP_OP_CANCEL_JOB)
      request.add(uri: "job-uri", "ipp://localhost/jobs/\(id)")
      do throws(CUPSError) {
        _ = try Self.send(request, http)
      } catch {
        if error.status != .notPossible { throw error }  // else: it already ended
      }
    }
  }
}

/// A destination array from `cupsGetDests2`, owned here: `cupsFreeDests` in `deinit`.
private final class DestList {
  let raw: UnsafeMutablePointer<cups_dest_t>?
  let count: Int32
  init(_ raw: UnsafeMutablePointer<cups_dest_t>?, count: Int32) {
    self.raw = raw
    self.count = count
  }
  deinit { cupsFreeDests(count, raw) }

  var names: [String] {
    guard let raw else { return [] }
    return (0..<Int(count)).compactMap { i in
      raw[i].instance == nil ? String(cString: raw[i].name) : nil
    }
  }
}

/// One destination from `cupsGetNamedDest`, owned here: `cupsFreeDests(1, …)` in `deinit`.
private final class Dest {
  let raw: UnsafeMutablePointer<cups_dest_t>
  init?(_ raw: UnsafeMutablePointer<cups_dest_t>?) {
    guard let raw else { return nil }
    self.raw = raw
  }
  deinit { cupsFreeDests(1, raw) }
}

/// A destination's capabilities from `cupsCopyDestInfo`, owned here: `cupsFreeDestInfo`.
private final class DestInfo {
  let raw: OpaquePointer
  init?(_ raw: OpaquePointer?) {
    guard let raw else { return nil }
    self.raw = raw
  }
  deinit { cupsFreeDestInfo(raw) }
}
