import Foundation
import LabelCore
import LabelLanguages
import LabelRender

/// Debian's zbarimg (zbar-tools), the independent decoder the barcode tests read with.
enum ZBar {
  static let path = "/usr/bin/zbarimg"
  static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

  /// Every symbol zbarimg reads in `png`, as "TYPE:data" lines with `--raw` data.
  static func decode(_ png: [UInt8]) throws -> [String] {
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

/// The bounding box of black dots in `bitmap` within an optional region.
struct InkBox: Equatable {
  var minX: Int, minY: Int, maxX: Int, maxY: Int

  init?(_ bitmap: Bitmap) {
    var box: InkBox?
    for y in 0..<bitmap.height {
      for x in 0..<bitmap.width where bitmap[x, y] {
        if var b = box {
          b.minX = min(b.minX, x)
          b.minY = min(b.minY, y)
          b.maxX = max(b.maxX, x)
          b.maxY = max(b.maxY, y)
          box = b
        } else {
          box = InkBox(minX: x, minY: y, maxX: x, maxY: y)
        }
      }
    }
    guard let box else { return nil }
    self = box
  }

  init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
  }
}

func dotsAt(_ mm: Double, _ dpi: Int) -> Int { Int((mm * Double(dpi) / 25.4).rounded()) }

func label(_ widthMM: Double, _ lengthMM: Double, _ elements: [Element]) -> Template {
  Template(
    name: "test", media: TemplateMedia(widthMM: widthMM, lengthMM: lengthMM), elements: elements)
}
