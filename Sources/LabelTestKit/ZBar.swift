import Foundation

/// Debian's zbarimg (zbar-tools), the independent decoder the barcode tests read with.
package enum ZBar {
  package static let path = "/usr/bin/zbarimg"
  package static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

  /// Every symbol zbarimg reads in `png`, as "TYPE:data" lines with `--raw` data.
  package static func decode(_ png: [UInt8]) throws -> [String] {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-zbar-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("label.png")
    try Data(png).write(to: file)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    // --raw: data as bytes (QR would otherwise be guessed as Shift-JIS); -q: no summary.
    p.arguments = ["--quiet", "--raw", file.path]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}
