import Foundation
import LabelCore
import LabelKit
import LabelKitWeb

/// LabelKit over `wss://` (the iPad app's route: TLS, the certificate pinned) against the
/// Unix socket: `hello` from 10 tasks sharing one client, flat out, in alternating rounds
/// (so a slower minute of the machine weighs on both alike). The aim: within 20% in
/// calls/s and p99.
@MainActor func kitWebSection() throws {
  let port = freePort()
  let home = config.work.appendingPathComponent("kitweb")
  try? FileManager.default.removeItem(at: home)
  let plainPort = freePort()
  let (daemon, socket) = try startDaemon(
    home,
    benchPrinters + [
      "--listen-http", "127.0.0.1:\(port)", "--tls-self-signed",
    ])
  // TLS applies to every listener of a labeld: plain `ws://` (libmicrohttpd hands the
  // socket itself over; under TLS its thread forwards every byte through a socketpair)
  // is measured against a labeld of its own.
  let plainHome = config.work.appendingPathComponent("kitweb-plain")
  try? FileManager.default.removeItem(at: plainHome)
  let (plainDaemon, plainSocket) = try startDaemon(
    plainHome, benchPrinters + ["--listen-http", "127.0.0.1:\(plainPort)"])
  defer { stopDaemon(plainDaemon) }
  defer { stopDaemon(daemon) }
  let admin = try BlockingConnection(socketPath: socket)
  let token = try admin.call(
    "tokens.create", ["name": "bench", "role": "operator"], as: TokenCreated.self
  ).secret
  let cert = home.appendingPathComponent("state/tls/cert.pem").path
  let pin = try fingerprint(cert)
  guard let url = URL(string: "wss://127.0.0.1:\(port)/v1/ws") else {
    throw BenchError.failed("no URL")
  }
  let web = LabeldClient(route: .webSocket(url: url, token: token, pinnedSHA256: pin))
  let plainToken = try BlockingConnection(socketPath: plainSocket).call(
    "tokens.create", ["name": "bench", "role": "operator"], as: TokenCreated.self
  ).secret
  guard let plainURL = URL(string: "ws://127.0.0.1:\(plainPort)/v1/ws") else {
    throw BenchError.failed("no URL")
  }
  let plain = LabeldClient(route: .webSocket(url: plainURL, token: plainToken))
  let unix = LabeldClient(socketPath: socket)
  // The endpoint starts right after the socket: wait until a call goes through.
  for _ in 0..<500 {
    if (try? runAsync { try await web.hello() }) != nil,
      (try? runAsync { try await plain.hello() }) != nil
    {
      break
    }
    usleep(10_000)
  }
  let tasks = 10
  let perTask = max(config.requests / tasks / 4, 200)
  let rounds = 5
  var latencies: [String: [UInt64]] = [:]
  var seconds: [String: Double] = [:]
  for r in 0...rounds {
    for (name, client) in [("unix", unix), ("ws", plain), ("wss", web)] {
      progress("round \(r) of \(rounds): \(name), \(tasks) tasks × \(perTask) calls")
      let t0 = now()
      let round = try runAsync { () async throws -> [UInt64] in
        try await withThrowingTaskGroup(of: [UInt64].self) { group in
          for _ in 0..<tasks {
            group.addTask {
              var out: [UInt64] = []
              out.reserveCapacity(perTask)
              for _ in 0..<perTask {
                let t = now()
                _ = try await client.hello()
                out.append(now() - t)
              }
              return out
            }
          }
          var all: [UInt64] = []
          for try await part in group { all += part }
          return all
        }
      }
      if r == 0 { continue }  // the warm-up
      seconds[name, default: 0] += Double(now() - t0) / 1e9
      latencies[name, default: []] += round
    }
  }
  func row(_ name: String, _ label: String) -> (String, Double, Double) {
    let sorted = (latencies[name] ?? []).sorted()
    let rate = Double(sorted.count) / max(seconds[name] ?? 1, 1e-9)
    let p99 = percentile(sorted, 0.99)
    return (
      String(
        format: "| %@ | %d | %.3f | %.3f | %.0f |", label, sorted.count, percentile(sorted, 0.5),
        p99, rate), rate, p99
    )
  }
  let (unixRow, unixRate, unixP99) = row("unix", "Unix socket")
  let (wsRow, _, _) = row("ws", "`ws://` (plain, loopback)")
  let (wssRow, wssRate, wssP99) = row("wss", "`wss://`, certificate pinned (TLS 1.3, GnuTLS)")
  emit(
    """
    | `LabeldClient.hello()`, \(tasks) tasks on one client | calls | p50 ms | p99 ms | calls/s |
    |---|---:|---:|---:|---:|
    \(unixRow)
    \(wsRow)
    \(wssRow)

    wss against the socket: \(String(format: "%.0f%%", 100 * wssRate / unixRate)) of the calls/s, p99 \(String(format: "%.2f×", wssP99 / max(unixP99, 1e-9))) (aim: within 20%).
    """)
}

/// The SHA-256 fingerprint of a PEM certificate, as labeld logs it.
private func fingerprint(_ path: String) throws -> String {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
  p.arguments = ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"]
  let out = Pipe()
  p.standardOutput = out
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  let text = String(decoding: data, as: UTF8.self)
  guard let value = text.split(separator: "=").last else {
    throw BenchError.failed("no fingerprint for \(path)")
  }
  return value.trimmingCharacters(in: .whitespacesAndNewlines)
}
