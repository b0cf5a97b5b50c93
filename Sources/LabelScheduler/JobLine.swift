/// Items first in, first out: taking the first is O(1) however long the line (an array's
/// `removeFirst` moves everything behind it: a backlog of 50,000 jobs cost 400 kB of
/// copying per label printed). The space of taken items is given back once it is half
/// the storage. A printer's waiting jobs (`JobLine`) and the store's lanes use it.
struct FIFOLine<Element> {
  private(set) var items: [Element] = []
  private(set) var head = 0

  var first: Element? { head < items.count ? items[head] : nil }
  var isEmpty: Bool { head >= items.count }
  var count: Int { items.count - head }
  /// The items waiting, first first.
  var waiting: ArraySlice<Element> { items[head...] }

  mutating func append(_ item: Element) { items.append(item) }

  /// Takes the first item out of the line.
  mutating func removeFirst() -> Element? {
    guard head < items.count else { return nil }
    let item = items[head]
    head += 1
    compact()
    return item
  }

  /// Inserts `item` before the waiting one at `index` (an index of `items`).
  mutating func insert(_ item: Element, at index: Int) { items.insert(item, at: index) }

  /// Removes the waiting item at `index` (an index of `items`).
  mutating func remove(at index: Int) {
    items.remove(at: index)
    compact()
  }

  private mutating func compact() {
    if head == items.count {
      items.removeAll(keepingCapacity: items.capacity <= 1024)
      head = 0
    } else if head >= 1024 && head * 2 >= items.count {
      items.removeFirst(head)
      head = 0
    }
  }
}

extension FIFOLine: Sendable where Element: Sendable {}

/// A printer's waiting jobs, first come first served.
typealias JobLine = FIFOLine<Int>

extension FIFOLine where Element == Int {
  /// Takes `id` out of the line wherever it stands; false if it is not in it.
  mutating func remove(_ id: Int) -> Bool {
    guard let index = waiting.firstIndex(of: id) else { return false }
    remove(at: index)
    return true
  }

  func contains(_ id: Int) -> Bool { waiting.contains(id) }

  /// Puts `id` back before the first job with a greater id (a job returning to its turn).
  mutating func insertInOrder(_ id: Int) {
    insert(id, at: waiting.firstIndex { $0 > id } ?? items.endIndex)
  }
}
