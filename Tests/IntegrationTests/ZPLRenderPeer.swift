import Foundation
import LabelTestKit

/// ZPL drawn the way a Zebra printer draws it, by an independent implementation: zplkit
/// (PyPI, a Rust ZPL renderer; `make peers` installs it into `.build/peers/zplrender`).
/// Its "specification" profile follows Zebra's ZPL II Programming Guide; "zd621" follows
/// what a ZD621's firmware was measured to do where it departs from the guide (an over-long
/// `^BE` field, for one). The barcode tests read its pictures back with zbarimg.
enum ZPLRenderPeer {
  static let root = Repository.root
  static let python: String? = {
    let path = root.appendingPathComponent(".build/peers/zplrender/bin/python").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }()
  static let profiles = ["specification", "zd621"]

  /// The first label of each ZPL document drawn at `dpi` with `profile`, as PNG files.
  static func render(_ documents: [String], dpi: Int, profile: String) throws -> [[UInt8]] {
    guard let python else { return [] }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-zplkit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let script = """
      import json, re, sys
      from zplkit import Options, render
      dpi, profile, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
      for i, zpl in enumerate(json.load(sys.stdin)):
          # zplkit 0.3.2 refuses ^PQ (print quantity), which changes how many labels
          # print, not what one looks like.
          zpl = re.sub(r"\\^PQ[0-9,YN]*", "", zpl)
          document = render(zpl.encode("utf-8"), Options(profile=profile, dpi=dpi))
          open(f"{out}/{i}.png", "wb").write(document.labels[0].png())
      """
    let p = Process()
    p.executableURL = URL(fileURLWithPath: python)
    p.arguments = ["-c", script, "\(dpi)", profile, dir.path]
    let stdin = Pipe()
    p.standardInput = stdin
    p.standardOutput = FileHandle.nullDevice
    let stderr = Pipe()
    p.standardError = stderr
    try p.run()
    try stdin.fileHandleForWriting.write(contentsOf: JSONEncoder().encode(documents))
    try stdin.fileHandleForWriting.close()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
      throw PeerError.failed(String(decoding: errors, as: UTF8.self))
    }
    return try documents.indices.map {
      [UInt8](try Data(contentsOf: dir.appendingPathComponent("\($0).png")))
    }
  }

  enum PeerError: Error { case failed(String) }
}
