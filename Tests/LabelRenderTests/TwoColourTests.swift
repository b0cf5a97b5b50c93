import Foundation
import LabelCore
import LabelLanguages
import Testing

@testable import LabelRender

/// Labels in two inks for red/black rolls: elements in their colour, a later element
/// covering an earlier one; PNGs split into black and red as brother_ql splits them.
struct TwoColourTests {
  let rasteriser = LabelRasteriser()

  @Test func elementsLandOnTheirPlane_andLaterOnesCoverEarlierOnes() throws {
    var redBox = BoxElement(x: 2, y: 2, width: 20, height: 10, fill: true)
    redBox.color = .red
    var blackBar = BoxElement(x: 10, y: 0, width: 2, height: 20, fill: true)
    blackBar.color = .black
    var redDot = BoxElement(x: 10.5, y: 5, width: 1, height: 1, fill: true)
    redDot.color = .red
    let template = Template(
      name: "t", media: TemplateMedia(widthMM: 30, lengthMM: 20),
      elements: [.box(redBox), .box(blackBar), .box(redDot)])
    let planes = try rasteriser.renderPlanes(template, data: [:], dpi: 300)
    let mono = try rasteriser.render(template, data: [:], dpi: 300)
    let dots = { (mm: Double) in Int((mm * 300 / 25.4).rounded()) }
    // The red box is red except where the black bar crosses it; the red dot on the bar is
    // red again; nothing is in both planes, and together they are the one-colour label.
    #expect(planes.red[dots(4), dots(4)] && !planes.black[dots(4), dots(4)])
    #expect(planes.black[dots(11), dots(3)] && !planes.red[dots(11), dots(3)])
    #expect(planes.red[dots(11), dots(5.5)] && !planes.black[dots(11), dots(5.5)])
    #expect(planes.black[dots(11), dots(16)])
    #expect(planes.black.subtracting(planes.red) == planes.black)
    #expect(planes.black.union(planes.red) == mono)
    // Red text is red, and all of it.
    var text = TextElement(x: 1, y: 12, width: 28, height: 6, text: "Sale", size: 14)
    text.color = .red
    let t2 = Template(
      name: "t2", media: TemplateMedia(widthMM: 30, lengthMM: 20), elements: [.text(text)])
    let p2 = try rasteriser.renderPlanes(t2, data: [:], dpi: 300)
    let monoText = try rasteriser.render(t2, data: [:], dpi: 300)
    #expect(p2.black.blackCount == 0 && p2.red == monoText && monoText.blackCount > 0)
  }

  /// brother_ql's split, as measured with brother-ql-next 0.12 at its default threshold
  /// (70%): these colours are red there and here.
  @Test func pngColours_splitAsBrotherQLSplitsThem() throws {
    let red: [(Int, Int, Int)] = [
      (81, 0, 0), (100, 0, 0), (180, 0, 0), (255, 0, 0), (200, 50, 50), (255, 0, 255),
      (255, 0, 200), (255, 128, 0), (255, 165, 0), (255, 100, 100), (255, 130, 130),
    ]
    let notRed: [(Int, Int, Int)] = [
      (0, 0, 0), (79, 79, 79), (79, 0, 0), (0, 0, 79), (80, 80, 80), (128, 128, 128),
      (0, 0, 255), (255, 255, 0), (255, 200, 0), (255, 192, 203), (255, 255, 255),
    ]
    for (r, g, b) in red { #expect(PNGCodec.isRed(r, g, b), "\(r),\(g),\(b)") }
    for (r, g, b) in notRed { #expect(!PNGCodec.isRed(r, g, b), "\(r),\(g),\(b)") }
    // A PNG of black, red and white: the planes are the image's black and red. (Blue and
    // mid-grey, which brother_ql drops, print black as on a one-colour printer.)
    var black = Bitmap(width: 40, height: 10)
    black.fill(x: 0, y: 0, width: 10, height: 10)
    var redPlane = Bitmap(width: 40, height: 10)
    redPlane.fill(x: 20, y: 2, width: 10, height: 6)
    let png = try PNGCodec.encode(black: black, red: redPlane)
    let planes = try PNGCodec.decodeTwoColour(png)
    #expect(planes.black == black && planes.red == redPlane)
    // The same PNG on a one-colour printer: everything dark prints black.
    let mono = try PNGCodec.decodeBitmap(png)
    #expect(mono == black.union(redPlane))
  }
}
