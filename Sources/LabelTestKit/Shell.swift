import Foundation

/// Shell commands of the storage tests (mounts, mkfs, fills): one place to run them.
package enum Shell {
  /// Runs `command` with /bin/sh; its exit status.
  @discardableResult
  package static func run(_ command: String) throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    try p.run()
    p.waitUntilExit()
    return p.terminationStatus
  }

  /// Runs `command` and throws unless it succeeds.
  package static func check(_ command: String) throws {
    let status = try run(command)
    guard status == 0 else { throw HarnessError.failed("\(command): exit status \(status)") }
  }

  /// What `command` wrote to stdout, trimmed.
  package static func output(_ command: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
