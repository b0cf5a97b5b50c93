import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Debian's LPrint (1.1, package `lprint`) as an independent EPL2 implementation: the same
/// 8-bit grey PNG printed by LPrint's `epl2_4inch-203dpi-dt` driver to a file and by
/// labeld to a simulated EPL2 printer, both decoded with labeld's own decoder, put the same
/// dots on the label.
///
/// Byte-level differences, each expected:
/// - LPrint centres the image in the printable area; labeld puts it at the top-left (as on
///   every raster printer it drives). The comparison is of the inked area.
/// - LPrint sends `q816` (the 4 in width rounded up to whole bytes), labeld `q812` (4 in at
///   203 dpi) and `Q1218,24` (6 in labels, a 3 mm gap); LPrint sends no `Q` and leaves the
///   label length to the printer's calibration.
/// - LPrint sends `D` from its darkness setting (`D0` here), labeld none unless configured.
/// - LPrint sends one `GW0,y,102,1` per inked row, labeld one `GW` per run of inked rows.
/// - LPrint turns a landscape image to the label's orientation; labeld prints dots as sent
///   (the test card is portrait).
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lprint") && getuid() == 0
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
    "needs Debian's lprint (make deps installs it), root and unshare: LPrint's server runs in its own mount, network and pid namespaces"
  ))
struct LPrintPeerTests {
  /// An 8-bit grey PNG of `bitmap` with a pHYs chunk at `dpi` (LPrint draws an image one
  /// pixel per dot only when it says so; it prints a 1-bit PNG all black).
  static func greyPNG(_ bitmap: Bitmap, dpi: Int, to path: String) throws {
    let pbm = path + ".pbm"
    let header = Array("P4\n\(bitmap.width) \(bitmap.height)\n".utf8)
    try Data(header + bitmap.bytes).write(to: URL(fileURLWithPath: pbm))
    let script = """
      import struct, sys, zlib
      data = open(sys.argv[1], "rb").read()
      lines = data.split(b"\\n", 2)
      w, h = map(int, lines[1].split())
      bits, per = lines[2], (w + 7) // 8
      raw = b"".join(b"\\0" + bytes(0 if bits[y * per + x // 8] & (0x80 >> (x % 8)) else 255
                     for x in range(w)) for y in range(h))
      def chunk(t, d):
          return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
      ppm = round(int(sys.argv[3]) / 0.0254)
      png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
      png += chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)) + chunk(b"IDAT", zlib.compress(raw))
      open(sys.argv[2], "wb").write(png + chunk(b"IEND", b""))
      """
    try Shell.check("python3 -c '\(script)' \(pbm) \(path) \(dpi)")
  }

  /// The bytes LPrint's `driver` writes for `png`, from a private `lprint server` (own
  /// namespaces, so its root socket /run/lprint.sock is its own; `HOME` in `dir`, so its
  /// state file ~/.lprint.conf is too); bounded at 60 s.
  static func lprint(_ png: String, driver: String, in dir: String) throws -> [UInt8] {
    let script = """
      export HOME=\(dir)
      mount -t tmpfs tmpfs /run && ip link set lo up 2>/dev/null
      lprint server -o spool-directory=\(dir)/spool -o server-port=8631 -o log-level=error >\(dir)/server.log 2>&1 &
      for i in $(seq 1 100); do [ -S /run/lprint.sock ] && break; sleep 0.1; done
      lprint add -d peer -v file://\(dir)/out -m \(driver) >/dev/null
      lprint submit -d peer -o print-scaling=none \(png) >/dev/null
      for i in $(seq 1 200); do ls \(dir)/out/*.prn >/dev/null 2>&1 && break; sleep 0.1; done
      sleep 0.5
      """
    try Shell.check(
      "mkdir -p \(dir)/out && timeout 60 unshare -m -n -p -f --mount-proc sh -c '\(script)'")
    let names = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/out")
    let prn = try #require(names.first { $0.hasSuffix(".prn") }, "LPrint wrote nothing")
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/out/\(prn)")))
  }

  /// The smallest rectangle holding every black dot, as its own bitmap.
  static func inked(_ b: Bitmap) -> Bitmap? {
    var (x0, y0, x1, y1) = (Int.max, Int.max, -1, -1)
    for y in 0..<b.height {
      for x in 0..<b.width where b[x, y] {
        (x0, y0, x1, y1) = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
      }
    }
    guard x1 >= 0 else { return nil }
    var out = Bitmap(width: x1 - x0 + 1, height: y1 - y0 + 1)
    for y in y0...y1 { for x in x0...x1 where b[x, y] { out[x - x0, y - y0] = true } }
    return out
  }

  /// The bytes labeld's simulated printer `NAME=LANGUAGE` writes for the PNG at `png`.
  static func ours(_ png: String, simulate: String, ext: String) throws -> [UInt8] {
    let name = String(simulate.prefix { $0 != "=" })
    return try withDaemon(["--simulate", simulate]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let data = try Data(contentsOf: URL(fileURLWithPath: png))
      let id = try Fixtures.submitPNG(c, printer: "sim:\(name)", png: [UInt8](data)).id
      try w.waitForJob(id)
      return try #require(d.simOutput(name, job: id, ext: ext))
    }
  }

  @Test func epl2_samePNG_sameDotsAsLPrint() throws {
    let dir = DaemonProcess.makeTempDirectory().path
    // Taller than wide: LPrint turns a landscape image to fit a portrait label (measured
    // with a 203 x 101 card); labeld never turns
    // an image.
    let card = RasterPrintingTests.testCard(width: 101, height: 203)
    let png = "\(dir)/card.png"
    try Self.greyPNG(card, dpi: 203, to: png)
    let theirs = try Self.lprint(png, driver: "epl2_4inch-203dpi-dt", in: dir)
    let theirPage = try #require(try EPL2Decoder().decode(theirs).pages.first?.image)

    let ours = try Self.ours(png, simulate: "ep=epl2", ext: "epl")
    let ourPage = try #require(try EPL2Decoder().decode(ours).pages.first?.image)
    #expect(Self.inked(ourPage) == card)
    #expect(Self.inked(theirPage) == card)
    let theirText = String(decoding: theirs.prefix(40), as: UTF8.self)
    #expect(theirText.hasPrefix("\nN\n") && theirText.contains("q816"))
  }

  /// LPrint's `dymo_lw-450` driver against labeld's DYMO LabelWriter encoder, both decoded
  /// with labeld's decoder. Byte-level differences, each expected:
  /// - LPrint sends 100 `ESC`s before `ESC @`, labeld 156 (DYMO's own driver's count: more
  ///   than the 4XL's 156-byte line, so any half-sent line ends).
  /// - LPrint sends `ESC Q 0 0` (line tab) and `ESC q 1` (roll); labeld leaves both at
  ///   their reset defaults.
  /// - LPrint centres the image in its printable area and skips the white rows above it
  ///   with `ESC f 1 n`; labeld puts the image at the label's top-left corner. The
  ///   comparison is of the inked area.
  /// - LPrint 1.1 sends `ESC D` one less than its line's bytes and leaves out each line's
  ///   first byte (46 bytes of a 47-byte line here), so its image lands 8 dots left of
  ///   where it meant it; the card sits well inside, so no ink is lost.
  /// - LPrint sends every inked row as `SYN`; labeld sends `ETB` runs where shorter.
  /// - LPrint sends `ESC d` (medium, its darkness 50); labeld none unless configured.
  @Test func dymoLW_samePNG_sameDotsAsLPrint() throws {
    let dir = DaemonProcess.makeTempDirectory().path
    let card = RasterPrintingTests.testCard(width: 240, height: 400)
    let png = "\(dir)/card.png"
    try Self.greyPNG(card, dpi: 300, to: png)
    let theirs = try Self.lprint(png, driver: "dymo_lw-450", in: dir)
    let theirJob = try DymoLWDecoder().decode(theirs)
    let theirPage = try #require(theirJob.pages.first?.image)
    #expect(theirJob.pages.count == 1 && theirJob.pages[0].labelLength == 1050)
    let ours = try Self.ours(png, simulate: "lw=dymo-lw", ext: "lw")
    let ourJob = try DymoLWDecoder().decode(ours)
    let ourPage = try #require(ourJob.pages.first?.image)
    #expect(Self.inked(ourPage) == card)
    #expect(Self.inked(theirPage) == card)
    #expect(ourJob.pages[0].labelLength == 1050 && ourJob.pages[0].compressedLines > 0)
  }
}
