/// A printer's waiting jobs, first come first served. Taking the first is O(1) however
/// long the line (an array's `removeFirst` moves every job behind it: a backlog of 50,000
/// jobs cost 400 kB of copying per label printed). The space of taken jobs is given
/// back once it is half the storage.
struct JobLine: Sendable {
  private var ids: [Int] = []
  private var head = 0

  var first: Int? { head < ids.count ? ids[head] : nil }
  var isEmpty: Bool { head >= ids.count }
  var count: Int { ids.count - head }

  mutating func append(_ id: Int) { ids.append(id) }

  /// Takes the first job out of the line.
  mutating func removeFirst() -> Int? {
    guard head < ids.count else { return nil }
    let id = ids[head]
    head += 1
    compact()
    return id
  }

  /// Takes `id` out of the line wherever it stands; false if it is not in it.
  mutating func remove(_ id: Int) -> Bool {
    guard let index = ids[head...].firstIndex(of: id) else { return false }
    ids.remove(at: index)
    compact()
    return true
  }

  func contains(_ id: Int) -> Bool { ids[head...].contains(id) }

  /// Puts `id` back before the first job with a greater id (a job returning to its turn).
  mutating func insertInOrder(_ id: Int) {
    let index = ids[head...].firstIndex { $0 > id } ?? ids.endIndex
    ids.insert(id, at: index)
  }

  private mutating func compact() {
    if head == ids.count {
      ids.removeAll(keepingCapacity: ids.capacity <= 1024)
      head = 0
    } else if head >= 1024 && head * 2 >= ids.count {
      ids.removeFirst(head)
      head = 0
    }
  }
}
