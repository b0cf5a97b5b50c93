import LabelCore

enum Fixtures {
  /// A 2 x 1 in shelf label.
  static let shelfTemplate: JSONValue = [
    "name": "shelf",
    "media": ["widthMM": 50.8, "lengthMM": 25.4],
    "elements": [
      [
        "type": "text", "x": 2, "y": 2, "width": 46, "height": 6, "text": "${name}",
        "weight": "bold",
      ],
      [
        "type": "barcode", "x": 4, "y": 9, "height": 10, "symbology": "ean13", "data": "${barcode}",
      ],
      ["type": "box", "x": 0.5, "y": 0.5, "width": 49.8, "height": 24.4],
    ],
  ]
}
