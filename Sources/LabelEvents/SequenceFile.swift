import LabelConcurrency
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One copy of the sequence record on disk: a preallocated file of two 512-byte slots.
/// Each write overwrites, in place, the slot that does not hold this copy's newest record
/// (pwrite, then fdatasync), so:
/// - a full disk does not stop it: the blocks were allocated when the file was made;
/// - a write torn by a power cut leaves the previous record intact in the other slot.
///
/// All I/O runs on the copy's own lane (`BlockingQueue`), so a copy on a stalled disk never holds up
/// the other copy or the caller (see `AlertSequence.record`).
///
/// `@unchecked Sendable`: `fd` and `newestSlot` are touched only on `lane`.
package final class SequenceFile: @unchecked Sendable {
  package enum Read: Equatable {
    case missing
    case valid(SequenceRecord)
    case corrupt(String)
  }

  package let path: String
  /// fdatasync after each write. The runtime mirror lives on a tmpfs: it has to survive a
  /// crashed process, not a power cut, so it skips the sync.
  private let syncs: Bool
  private let lane: BlockingQueue
  private var fd: Int32 = -1
  private var newestSlot = 1
  /// Writes queued or running, and since when the oldest has been waiting.
  private let inFlight = Mutex<(count: Int, since: ContinuousClock.Instant?)>((0, nil))

  private static let slotStride: Int = 512
  private static let fileSize = 2 * slotStride

  package init(path: String, syncs: Bool) {
    self.path = path
    self.syncs = syncs
    self.lane = BlockingQueue(label: "labeld.alert-seq")
  }

  deinit { if fd >= 0 { Glibc.close(fd) } }

  /// The newest valid record of either slot (start-up, before any write).
  package func read() -> Read {
    lane.sync {
      let rfd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      if rfd < 0 {
        let e = errno
        return e == ENOENT ? .missing : .corrupt("cannot open: \(SystemError("open", errno: e))")
      }
      defer { Glibc.close(rfd) }
      var bytes = [UInt8](repeating: 0, count: Self.fileSize)
      let n = bytes.withUnsafeMutableBytes { pread(rfd, $0.baseAddress, $0.count, 0) }
      guard n >= 0 else { return .corrupt("cannot read: \(SystemError("pread", errno: errno))") }
      let slots = (0..<2).map { i in
        SequenceRecord.decode(bytes[min(n, i * Self.slotStride)..<n].prefix(SequenceRecord.size))
      }
      var best: (Int, SequenceRecord)?
      var problems: [String] = []
      for (i, slot) in slots.enumerated() {
        switch slot {
        case .valid(let r): if best == nil || r.generation > best!.1.generation { best = (i, r) }
        case .corrupt(let why): problems.append("slot \(i): \(why)")
        case .empty: break
        }
      }
      if let (i, record) = best {
        newestSlot = i
        return .valid(record)
      }
      // Both slots unusable: a file that was made but never written is as good as none.
      return problems.isEmpty ? .missing : .corrupt(problems.joined(separator: "; "))
    }
  }

  /// Whether a write has been waiting longer than `limit`: the disk under it is stalled,
  /// and waiting for this copy would only hold up delivery.
  package func isStalled(longerThan limit: Duration) -> Bool {
    inFlight.withLock { s in s.since.map { ContinuousClock.now - $0 > limit } ?? false }
  }

  /// Writes `record` on the copy's lane and calls `done` there with the outcome.
  package func write(_ record: SequenceRecord, done: @escaping @Sendable (SystemError?) -> Void) {
    inFlight.withLock { s in
      s.count += 1
      if s.since == nil { s.since = .now }
    }
    lane.submit {
      let error: SystemError?
      do throws(SystemError) {
        try self.writeNow(record)
        error = nil
      } catch let e {
        // Reopened next time: a remounted or repaired file system is picked up.
        if self.fd >= 0 { Glibc.close(self.fd) }
        self.fd = -1
        error = e
      }
      self.inFlight.withLock { s in
        s.count -= 1
        s.since = s.count == 0 ? nil : .now
      }
      done(error)
    }
  }

  private func writeNow(_ record: SequenceRecord) throws(SystemError) {
    if fd < 0 { fd = try openForWriting() }
    let slot = 1 - newestSlot
    let bytes = record.encoded()
    let n = try SystemError.check("pwrite") {
      bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(slot * Self.slotStride)) }
    }
    guard n == bytes.count else { throw SystemError("pwrite", errno: EIO) }
    if syncs { try SystemError.check("fdatasync") { fdatasync(fd) } }
    newestSlot = slot
  }

  /// Opens (making and preallocating it if needed) the file. Never follows a symlink and
  /// refuses a file that is not labeld's own: the mirror may sit in a shared directory.
  private func openForWriting() throws(SystemError) -> Int32 {
    let fd = try SystemError.check("open \(path)") {
      Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
    var st = stat()
    do throws(SystemError) {
      try SystemError.check("fstat") { fstat(fd, &st) }
      guard st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_nlink == 1 else {
        throw SystemError("open \(path): not a regular file of labeld's own", errno: EPERM)
      }
      if st.st_size < Self.fileSize {
        // Allocated now, while there is room, so later overwrites need none.
        let zeros = [UInt8](repeating: 0, count: Self.fileSize - Int(st.st_size))
        let n = try SystemError.check("pwrite") {
          zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(st.st_size)) }
        }
        guard n == zeros.count else { throw SystemError("pwrite", errno: ENOSPC) }
        try SystemError.check("fsync") { fsync(fd) }
        syncDirectory()
      }
    } catch {
      Glibc.close(fd)
      throw error
    }
    return fd
  }

  /// Makes a new file's name durable (its directory entry).
  private func syncDirectory() {
    guard syncs else { return }
    let dir = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    let dfd = Glibc.open(dir.isEmpty ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dfd >= 0 {
      _ = fsync(dfd)
      Glibc.close(dfd)
    }
  }
}
