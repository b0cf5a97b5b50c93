import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Job ownership from SO_PEERCRED, with a real second user: a tiny Python client run as
/// `nobody` through `setpriv`. Needs root (CI runs as root); run `sudo make test` elsewhere.
@Suite(.enabled(if: getuid() == 0, "needs root to connect as another uid (run the tests as root)"))
struct PeerCredentialTests {
  static let nobody: UInt32 = 65534
  /// Debian's `nogroup` (nobody's group) and `users`.
  static let nogroup: UInt32 = 65534
  static let users: UInt32 = 100

  /// A daemon whose socket (mode 0660) belongs to group nogroup, so `nobody` may connect.
  static let args = [
    "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql", "--socket-group", "nogroup",
  ]

  /// Sends each request line as `nobody` (group nogroup, plus `groups`) and returns the
  /// response lines.
  static func asNobody(_ socket: String, _ requests: [JSONValue], groups: [UInt32] = []) throws
    -> [JSONValue]
  {
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rwb')
      for line in sys.argv[2:]:
          f.write(line.encode() + b'\\n'); f.flush(); sys.stdout.write(f.readline().decode())
      """
    let lines = try requests.map {
      String(decoding: try LabelJSON.encoder().encode($0), as: UTF8.self)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    p.arguments =
      [
        "--reuid", "\(nobody)", "--regid", "\(nogroup)",
      ]
      + (groups.isEmpty
        ? ["--clear-groups"] : ["--groups", groups.map(String.init).joined(separator: ",")])
      + [
        "/usr/bin/python3", "-c", script, socket,
      ] + lines
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return try data.split(separator: 0x0A).map {
      try LabelJSON.decoder().decode(JSONValue.self, from: Data($0))
    }
  }

  static func request(_ id: Int, _ method: String, _ params: JSONValue) -> JSONValue {
    ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
  }

  /// A job root submitted to sim:zebra, paused so that the job stays pending (there is
  /// something to cancel), and root's connection.
  static func rootsPendingJob(_ d: DaemonProcess) throws -> (BlockingConnection, Job) {
    let root = try d.client()
    try root.call("printers.simulate", ["printer": "sim:zebra", "fault": "paused"])
    let job = try Fixtures.submit(root, "sim:zebra", "^XA^XZ")
    return (root, job)
  }

  @Test func cancelRules_followTheJobOwnersUid() throws {
    try withDaemon(Self.args) { d in
      chmod(d.directory.path, 0o755)  // let nobody reach the socket
      let (root, rootJob) = try Self.rootsPendingJob(d)
      #expect(rootJob.owner.uid == 0)
      let doc: JSONValue = ["format": "native", "data": base64("^XA^XZ")]

      let replies = try Self.asNobody(
        d.socketPath,
        [
          Self.request(1, "jobs.cancel", ["job": .int(rootJob.id)]),
          Self.request(2, "jobs.submit", ["printer": "sim:zebra", "document": doc]),
          Self.request(3, "jobs.submit", ["printer": "sim:zebra", "document": doc]),
          Self.request(4, "jobs.cancel", ["job": .int(rootJob.id + 1)]),
        ])
      #expect(replies.count == 4)
      // Someone else's job: 1005, naming the peer's uid; the job is untouched.
      #expect(replies[0]["error"]?["code"] == 1005)
      #expect(replies[0]["error"]?["data"] == ["uid": .int(Int(Self.nobody))])
      #expect(
        try root.call("jobs.get", ["job": .int(rootJob.id)], as: JobResult.self).job.state
          == .pending)
      // Its own jobs carry its uid, and it may cancel them.
      #expect(replies[1]["result"]?["job"]?["owner"] == ["uid": .int(Int(Self.nobody))])
      #expect(replies[3]["result"]?["job"]?["state"] == "canceled")
      // Root may cancel anyone's job.
      let other = try #require(replies[2]["result"]?["job"]?["id"]?.intValue)
      let canceled = try root.call("jobs.cancel", ["job": .int(other)], as: JobResult.self).job
      #expect(canceled.state == .canceled)
      #expect(canceled.owner.uid == Self.nobody)
    }
  }

  /// The socket is 0660 and its group's; a peer of another uid in that group may print
  /// but not use admin methods, nor cancel other people's jobs (1005).
  /// The socket has its group before it listens: a client spinning on connect while
  /// labeld starts never finds it listening with the process's group (it was chowned
  /// after listen, and the group-only test failed about one run in three).
  @Test func socketHasItsGroup_beforeAnyoneCanConnect() throws {
    for _ in 0..<10 {
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      let socket = home.appendingPathComponent("labeld.sock").path
      let p = Process()
      p.executableURL = URL(fileURLWithPath: DaemonProcess.labeldPath)
      p.arguments = [
        "--socket", socket, "--state-dir", home.appendingPathComponent("state").path,
        "--no-config", "--no-cups", "--no-usb", "--log-level", "error",
        "--socket-group", "nogroup",
      ]
      p.standardError = FileHandle.nullDevice
      try p.run()
      defer {
        p.terminate()
        p.waitUntilExit()
      }
      var st = stat()
      while p.isRunning {
        if let fd = try? UnixSocket.connect(path: socket) {
          // Connected: the socket listens; its group must already be set.
          #expect(stat(socket, &st) == 0)
          close(fd)
          break
        }
      }
      #expect(st.st_gid == Self.nogroup)
      #expect(st.st_mode & 0o777 == 0o660)
    }
  }

  @Test func socketIsGroupOnly_andAdminMethodsAreRefused() throws {
    try withDaemon(Self.args) { d in
      chmod(d.directory.path, 0o755)
      var st = stat()
      #expect(stat(d.socketPath, &st) == 0)
      #expect(st.st_mode & 0o777 == 0o660)
      #expect(st.st_gid == Self.nogroup)
      let replies = try Self.asNobody(
        d.socketPath,
        [
          Self.request(1, "printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"]),
          Self.request(2, "printers.list", [:]),
        ])
      #expect(replies.count == 2)
      #expect(replies[0]["error"]?["code"] == 1005)
      #expect(replies[0]["error"]?["data"] == ["uid": .int(Int(Self.nobody))])
      let message = replies[0]["error"]?["message"]?.stringValue ?? ""
      #expect(message.contains("labeld-admin"))
      #expect(replies[1]["result"]?["printers"]?.arrayValue?.count == 2)
      // Nothing was injected.
      let zebra = try d.client().call("printers.get", ["printer": "sim:zebra"])
      #expect(zebra["printer"]?["reasons"] == [])
    }
  }

  /// Members of the admin group — by a supplementary group, read with SO_PEERGROUPS — may
  /// inject faults and cancel anyone's jobs.
  @Test func adminGroupMembers_mayUseAdminMethods() throws {
    try withDaemon(Self.args + ["--admin-group", "users"]) { d in
      chmod(d.directory.path, 0o755)
      let (_, rootJob) = try Self.rootsPendingJob(d)
      let replies = try Self.asNobody(
        d.socketPath,
        [
          Self.request(1, "printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"]),
          Self.request(2, "jobs.cancel", ["job": .int(rootJob.id)]),
        ], groups: [Self.users])
      #expect(replies[0]["result"]?["printer"]?["reasons"] == ["coverOpen"])
      #expect(replies[1]["result"]?["job"]?["state"] == "canceled")
      // Without the supplementary group the same peer is refused.
      let refused = try Self.asNobody(
        d.socketPath, [Self.request(1, "printers.simulate", ["printer": "sim:ql", "fault": nil])])
      #expect(refused.first?["error"]?["code"] == 1005)
    }
  }
}
