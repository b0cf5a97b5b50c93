import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import LabelTestKit

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
