import Foundation

/// Where the tests find the repository's own files (the emulators, the README, the man
/// pages, the seed data): found from this source file's place, so a test runs from any
/// working directory.
package enum Repository {
  /// The checkout's root directory.
  package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// A file of the repository, by its path from the root.
  package static func path(_ relative: String) -> String {
    root.appendingPathComponent(relative).path
  }

  /// A printer emulator's script (Tests/Emulators).
  package static func emulator(_ name: String) -> String { path("Tests/Emulators/\(name)") }
}
