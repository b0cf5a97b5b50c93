import Foundation

/// The peer implementations the tests compare with run in Python venvs that `make peers`
/// creates under `.build/peers/NAME`.
enum PeerPython {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The venv's interpreter, or nil when it is not installed.
  static func interpreter(_ venv: String) -> String? {
    let path = root.appendingPathComponent(".build/peers/\(venv)/bin/python").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }

  /// Runs `script` with `input` on stdin and returns its stdout.
  static func run(_ python: String, _ script: String, input: Data) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: python)
    p.arguments = ["-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    p.standardInput = stdin
    p.standardOutput = stdout
    try p.run()
    try stdin.fileHandleForWriting.write(contentsOf: input)
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return data
  }
}
