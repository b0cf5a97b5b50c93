import Dispatch
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The alert sequence's durable record, in up to two copies: `<state>/alert-seq`, which
/// survives a power cut, and a mirror in the runtime directory (`$RUNTIME_DIRECTORY`, else the
/// socket's directory), a tmpfs that survives a crashed process even when the state file
/// system went read-only or stalled. Start-up reads both (`SequenceStart`); every write goes
/// to both, and a record counts once any copy has it.
package final class AlertSequence: Sendable {
  package let copies: [SequenceFile]
  private let generation = Atomic<UInt64>(0)
  /// Why there is no mirror, for the start-up log (nil when there is one).
  package let mirrorMissing: String?

  package init(stateDirectory: String, runtimeDirectory: String?) {
    var copies = [SequenceFile(path: stateDirectory + "/alert-seq", syncs: true)]
    let (mirror, why) = Self.mirrorPath(runtimeDirectory, stateDirectory: stateDirectory)
    if let mirror { copies.append(SequenceFile(path: mirror, syncs: false)) }
    self.copies = copies
    self.mirrorMissing = why
  }

  /// The mirror's path: named after the state directory, since several daemons may share
  /// a runtime directory. Only in a directory that exists, that labeld may write and that
  /// not everyone may (a file in a world-writable directory could be planted).
  private static func mirrorPath(_ dir: String?, stateDirectory: String) -> (String?, String?) {
    guard let dir, !dir.isEmpty else { return (nil, "no runtime directory") }
    var st = stat()
    guard stat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
      return (nil, "the runtime directory \(dir) does not exist")
    }
    guard st.st_mode & S_IWOTH == 0 else {
      return (nil, "the runtime directory \(dir) is writable by everyone")
    }
    guard access(dir, W_OK) == 0 else {
      return (nil, "the runtime directory \(dir) is not writable")
    }
    let real = realpath(stateDirectory, nil).map { p in
      defer { free(p) }
      return String(cString: p)
    }
    let id = String(SequenceRecord.hash(real ?? stateDirectory), radix: 16)
    return (dir + "/labeld-alert-seq-" + id, nil)
  }

  /// Each copy's newest record (start-up): the state copy's, and the mirror's if any.
  package func readAll() -> (
    state: (name: String, read: SequenceFile.Read),
    mirror: (name: String, read: SequenceFile.Read)?
  ) {
    (
      (copies[0].path, copies[0].read()),
      copies.count > 1 ? (copies[1].path, copies[1].read()) : nil
    )
  }

  /// Later writes are numbered after `seen`, so they are newer than every copy.
  package func continueGenerations(after seen: UInt64) {
    generation.store(seen, ordering: .relaxed)
  }

  /// What became of one record: the copies that have it, and why the others do not.
  package struct Outcome: Sendable {
    package var confirmed: Set<String> = []
    package var failures: [String] = []
    package var recorded: Bool { !confirmed.isEmpty }

    package init(confirmed: Set<String> = [], failures: [String] = []) {
      self.confirmed = confirmed
      self.failures = failures
    }
  }

  /// Writes `record` (numbered as the next generation) to every copy that is not stalled
  /// and waits up to `timeout` for them.
  package func record(_ record: SequenceRecord, timeout: Duration) -> Outcome {
    var record = record
    record.generation = generation.add(1, ordering: .relaxed).newValue
    let outcome = Mutex(Outcome())
    let group = DispatchGroup()
    for copy in copies {
      if copy.isStalled(longerThan: timeout) {
        outcome.withLock { $0.failures.append("\(copy.path): an earlier write has not returned") }
        continue
      }
      group.enter()
      copy.write(record) { error in
        outcome.withLock { o in
          if let error {
            o.failures.append("\(copy.path): \(error)")
          } else {
            o.confirmed.insert(copy.path)
          }
        }
        group.leave()
      }
    }
    let (s, a) = timeout.components
    if group.wait(timeout: .now() + Double(s) + Double(a) / 1e18) == .timedOut {
      outcome.withLock { $0.failures.append("a write did not return within \(timeout)") }
    }
    return outcome.withLock { $0 }
  }
}
