import Foundation
import LabelCore

/// One kind of call in the mixed load.
public enum LoadOperation: String, CaseIterable, Sendable, Comparable {
  /// `jobs.submit` of a small native document (ZPL for the ZPL printer, bytes for the QL).
  case submitNative = "jobs.submit native"
  /// `jobs.submit` of the load template with a product (`template` + `sku`).
  case submitTemplate = "jobs.submit template"
  /// `products.save` of one of the load products with a new price (no expectedVersion).
  case save = "products.save"
  /// `labels.render` of the template with a product as a PNG preview.
  case renderPNG = "labels.render png"
  /// `labels.render` of the template with a product as the printer's native bytes.
  case renderNative = "labels.render native"
  case printersList = "printers.list"
  /// `jobs.list` with `"limit": 100`.
  case jobsList = "jobs.list"
  /// A short connection: `subscribe` with `since: 0`, read the replay to its end (the
  /// result's `seq`), close.
  case subscribeReplay = "subscribe since 0"
  /// `printers.simulate` from the fault thread (not drawn by the clients).
  case faultToggle = "printers.simulate"

  public static func < (a: Self, b: Self) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }

  /// The short name used on command lines (`--weights jobsList=0`).
  public var key: String {
    switch self {
    case .submitNative: "submitNative"
    case .submitTemplate: "submitTemplate"
    case .save: "save"
    case .renderPNG: "renderPNG"
    case .renderNative: "renderNative"
    case .printersList: "printersList"
    case .jobsList: "jobsList"
    case .subscribeReplay: "subscribeReplay"
    case .faultToggle: "faultToggle"
    }
  }
}

/// What the load does: how many clients, which calls in which proportions, which printers.
public struct LoadMix: Sendable {
  /// Client threads, each with its own connection.
  public var clients = 16
  /// Relative weights of the calls each client draws (out of their sum). The default is
  /// the soak's mix: one call in ten a `jobs.list`, one in twenty a `subscribe` with
  /// `since: 0`.
  public var weights: [LoadOperation: Int] = [
    .submitNative: 20, .submitTemplate: 15, .save: 15, .renderPNG: 8, .renderNative: 7,
    .printersList: 20, .jobsList: 10, .subscribeReplay: 5,
  ]
  /// Offered calls per second for all clients together, each client pacing itself to its
  /// share; nil is a closed loop, each client calling again the moment it is answered.
  public var rate: Double?
  /// The printers jobs and renders alternate between.
  public var zplPrinter = "sim:zebra"
  public var qlPrinter = "sim:ql"
  /// The printer whose fault the fault thread toggles, and how often (nil: no toggling).
  public var faultPrinter = "sim:zebra"
  public var faultInterval: Double? = 0.5
  /// Seconds a client waits for one line before the call counts as a timeout.
  public var callTimeout: Double = 30
  /// RPC error codes the mix may legitimately get; they are counted apart from
  /// failures. None by default: every call in the mix should succeed.
  public var expectedErrorCodes: Set<Int> = []
  /// Seed of the clients' draws (client i uses seed + i).
  public var seed: UInt64 = 13

  public init() {}

  /// Parses `op=N,op=N` (keys as `LoadOperation.key`) over the current weights.
  public mutating func setWeights(_ text: String) throws(LoadError) {
    for part in text.split(separator: ",") {
      let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard kv.count == 2, let n = Int(kv[1]), n >= 0,
        let op = LoadOperation.allCases.first(where: { $0.key == kv[0] }), op != .faultToggle
      else {
        let keys = LoadOperation.allCases.filter { $0 != .faultToggle }.map(\.key)
        throw LoadError(
          "bad weight \"\(part)\": expected NAME=N with NAME one of \(keys.joined(separator: ", "))"
        )
      }
      weights[op] = n
    }
    guard weights.values.contains(where: { $0 > 0 }) else {
      throw LoadError("every weight is 0: nothing to do")
    }
  }

  /// The mix as text, for reports: "jobs.submit native 20%, …".
  public var summary: String {
    let total = max(1, weights.values.reduce(0, +))
    return weights.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
      "\($0.key.rawValue) \(String(format: "%.0f", Double($0.value) * 100 / Double(total)))%"
    }.joined(separator: ", ")
  }
}

public struct LoadError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ d: String) { description = d }
}

/// The template and products the load prints and saves (created by `LoadGenerator.prepare`).
public enum LoadFixtures {
  public static let templateName = "load-shelf"

  /// A 2 x 1 in shelf label: it fits the ZPL printer's labels and the QL's 62 mm roll.
  public static let template: JSONValue = [
    "name": .string(templateName),
    "media": ["widthMM": 50.8, "lengthMM": 25.4],
    "elements": [
      [
        "type": "text", "x": 1.5, "y": 1.5, "width": 47.8, "height": 6, "text": "${name}",
        "weight": "bold",
      ],
      ["type": "text", "x": 1.5, "y": 8, "width": 20, "height": 8, "text": "${currency} ${price}"],
      [
        "type": "barcode", "x": 22, "y": 8, "height": 10, "symbology": "ean13",
        "data": "${barcode}", "moduleWidth": 0.25,
      ],
      ["type": "box", "x": 0.5, "y": 0.5, "width": 49.8, "height": 24.4],
    ],
  ]

  public static let productCount = 16

  public static func sku(_ i: Int) -> String { String(format: "LOAD-%02d", i) }

  /// Product `i` with a price that changes with `revision`, and a valid EAN-13.
  public static func product(_ i: Int, revision: Int = 0) -> JSONValue {
    let price = Double(100 + i * 7 + revision % 50) / 100
    return [
      "sku": .string(sku(i)), "name": .string("Load product \(i)"), "price": .double(price),
      "currency": "EUR", "barcode": .string(ean13("400638100\(String(format: "%03d", i))")),
    ]
  }

  /// Twelve digits and their GS1 mod-10 check digit.
  static func ean13(_ twelve: String) -> String {
    let digits = twelve.compactMap(\.wholeNumberValue)
    let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
    return twelve + String((10 - sum % 10) % 10)
  }

  /// What a native job sends to each printer.
  public static let zplDocument = Array("^XA^FO30,30^A0N,30,30^FDsoak^FS^XZ\n".utf8)
  public static let qlDocument: [UInt8] = Array(repeating: 0, count: 200) + [0x1B, 0x40]
}
