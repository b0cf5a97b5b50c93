// swift-tools-version: 6.0
// An app's use of LabelKit, as an app adds it: this package depends on the labeld
// repository two folders up, as yours would with `.package(url: "https://…/labeld.git",
// branch: "main")` or `.package(path: "…")`.
import Foundation
import PackageDescription

// A package added by path is named after its folder (the clone's, "labeld" in most).
let labeld = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
  name: "ProductEditor",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [.package(path: labeld.path)],
  targets: [
    // The view model and, where SwiftUI exists (Apple platforms), the Edit Product sheet.
    .target(
      name: "ProductEditor",
      dependencies: [.product(name: "LabelKit", package: labeld.lastPathComponent)]),
    // A command-line stand-in for the sheet, which runs on Linux: it edits and saves a
    // product and shows the alerts as the sheet would, one after the other.
    .executableTarget(name: "product-editor", dependencies: ["ProductEditor"]),
  ],
  swiftLanguageModes: [.v6]
)
