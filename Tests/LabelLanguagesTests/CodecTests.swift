import Testing

@testable import LabelLanguages

struct PackBitsTests {
  /// Golden vectors: Apple's technical note TN1023 example and edge cases.
  @Test(arguments: [
    (
      [
        0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0x22, 0xAA,
        0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA,
      ] as [UInt8],
      [0xFE, 0xAA, 0x02, 0x80, 0x00, 0x2A, 0xFD, 0xAA, 0x03, 0x80, 0x00, 0x2A, 0x22, 0xF7, 0xAA]
        as [UInt8]
    ),
    ([], []),
    ([0x42], [0x00, 0x42]),
    ([0x00, 0x00], [0xFF, 0x00]),
    (Array(repeating: 0, count: 90), [0xA7, 0x00]),
    (Array(repeating: 0, count: 130), [0x81, 0x00, 0xFF, 0x00]),
  ])
  func golden(raw: [UInt8], packed: [UInt8]) {
    #expect(PackBits.encode(raw) == packed)
    #expect(PackBits.decode(packed) == raw)
  }

  @Test func randomRoundTrips() {
    for _ in 0..<500 {
      let n = Int.random(in: 0...400)
      // Mostly runs, some noise: what label raster rows look like.
      var data: [UInt8] = []
      while data.count < n {
        let b =
          UInt8.random(in: 0...3) == 0
          ? UInt8.random(in: 0...255) : [0x00, 0xFF][Int.random(in: 0...1)]
        data += repeatElement(b, count: Int.random(in: 1...200))
      }
      data = Array(data.prefix(n))
      let packed = PackBits.encode(data)
      #expect(PackBits.decode(packed) == data)
      #expect(packed.count <= data.count + (data.count + 127) / 128 + 1)
    }
  }

  @Test func truncatedInput_isNil() {
    #expect(PackBits.decode([0x05, 0x01]) == nil)
    #expect(PackBits.decode([0xFE]) == nil)
  }
}

struct ZebraHexTests {
  @Test func counts_followZebrasLetterScale() {
    #expect(String(decoding: ZebraHex.count(2), as: UTF8.self) == "H")
    #expect(String(decoding: ZebraHex.count(19), as: UTF8.self) == "Y")
    #expect(String(decoding: ZebraHex.count(20), as: UTF8.self) == "g")
    #expect(String(decoding: ZebraHex.count(21), as: UTF8.self) == "gG")
    #expect(String(decoding: ZebraHex.count(400), as: UTF8.self) == "z")
    #expect(String(decoding: ZebraHex.count(853), as: UTF8.self) == "zzhS")  // 400 + 400 + 40 + 13
  }

  @Test func golden_rowShortcuts() {
    // 32 dots wide (4 bytes, 8 digits): blank, left half black, same again, all black.
    var b = Bitmap(width: 32, height: 4)
    b.fill(x: 0, y: 1, width: 16, height: 2)
    b.fill(x: 0, y: 3, width: 32, height: 1)
    #expect(ZebraHex.encode(b) == ",JF,:!")
    #expect(ZebraHex.decode(",JF,:!", bytesPerRow: 4, rows: 4) == b.bytes)
  }

  @Test func plainHex_decodes() {
    #expect(ZebraHex.decode("FF00\n00FF", bytesPerRow: 2, rows: 2) == [0xFF, 0x00, 0x00, 0xFF])
    #expect(ZebraHex.decode("FF0", bytesPerRow: 2, rows: 1) == nil)
    #expect(ZebraHex.decode("XYZ", bytesPerRow: 2, rows: 1) == nil)
  }

  @Test func randomBitmaps_roundTrip() {
    for _ in 0..<200 {
      var b = Bitmap(width: Int.random(in: 1...300), height: Int.random(in: 1...40))
      for _ in 0..<Int.random(in: 0...20) {
        b.fill(
          x: Int.random(in: 0..<b.width), y: Int.random(in: 0..<b.height),
          width: Int.random(in: 1...80), height: Int.random(in: 1...10))
      }
      let text = ZebraHex.encode(b)
      #expect(ZebraHex.decode(text, bytesPerRow: b.bytesPerRow, rows: b.height) == b.bytes)
    }
  }
}

struct BitmapTests {
  @Test func pixels_packMostSignificantBitFirst() {
    var b = Bitmap(width: 10, height: 2)
    b[0, 0] = true
    b[9, 1] = true
    #expect(b.bytesPerRow == 2)
    #expect(b.bytes == [0x80, 0x00, 0x00, 0x40])
    #expect(b.mirrored()[9, 0] && b.mirrored()[0, 1])
    #expect(b.blackCount == 2)
    #expect(b[20, 20] == false)
  }
}
