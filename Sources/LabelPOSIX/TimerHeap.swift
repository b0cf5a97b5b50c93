/// The event loop's timers, earliest first: a binary min-heap on (deadline, order of
/// arrival), so adding and taking one costs log n however many connections wait on one,
/// and two timers due at the same instant run in the order they were set.
struct TimerHeap<Job> {
  private struct Entry {
    let deadline: ContinuousClock.Instant
    let order: UInt64
    let job: Job

    func runsBefore(_ other: Entry) -> Bool {
      deadline != other.deadline ? deadline < other.deadline : order < other.order
    }
  }

  private var entries: [Entry] = []
  private var nextOrder: UInt64 = 0

  var count: Int { entries.count }
  var earliest: ContinuousClock.Instant? { entries.first?.deadline }

  mutating func add(_ job: Job, at deadline: ContinuousClock.Instant) {
    entries.append(Entry(deadline: deadline, order: nextOrder, job: job))
    nextOrder &+= 1
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].runsBefore(entries[parent]) else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Takes the jobs due by `now`, earliest first.
  mutating func takeDue(by now: ContinuousClock.Instant) -> [Job] {
    var due: [Job] = []
    while let first = entries.first, first.deadline <= now {
      due.append(first.job)
      removeFirst()
    }
    return due
  }

  mutating func removeAll() { entries.removeAll() }

  private mutating func removeFirst() {
    let last = entries.removeLast()
    guard !entries.isEmpty else { return }
    entries[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < entries.count else { return }
      let right = left + 1
      let child = right < entries.count && entries[right].runsBefore(entries[left]) ? right : left
      guard entries[child].runsBefore(entries[parent]) else { return }
      entries.swapAt(child, parent)
      parent = child
    }
  }
}
