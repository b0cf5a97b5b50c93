/// Items first in, first out: taking the first is O(1) however long the line (an array's
/// `removeFirst` moves everything behind it: a backlog of 50,000 jobs cost 400 kB of
/// copying per label printed). The space of taken items is given back once it is half
/// the storage. A printer's waiting jobs (`JobLine`) and the store's lanes use it.
public struct FIFOLine<Element> {
  public private(set) var items: [Element] = []
  public private(set) var head = 0

  public init() {}

  public var first: Element? { head < items.count ? items[head] : nil }
  public var isEmpty: Bool { head >= items.count }
  public var count: Int { items.count - head }
  /// The items waiting, first first.
  public var waiting: ArraySlice<Element> { items[head...] }

  public mutating func append(_ item: Element) { items.append(item) }

  /// Takes the first item out of the line.
  public mutating func removeFirst() -> Element? {
    guard head < items.count else { return nil }
    let item = items[head]
    head += 1
    compact()
    return item
  }

  /// Inserts `item` before the waiting one at `index` (an index of `items`).
  public mutating func insert(_ item: Element, at index: Int) { items.insert(item, at: index) }

  /// Removes the waiting item at `index` (an index of `items`).
  public mutating func remove(at index: Int) {
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
