import LabelCore
import Observation
import Synchronization

/// The seed's fix as a library: every alert of the channel reaches the screen through one
/// presentation, one after the other, each once.
///
/// Bind one `.alert(item:)` to `current`. Two alerts arriving together are both shown, in
/// turn: `acknowledge()` (or setting `current` to nil, as SwiftUI does when the alert is
/// closed) shows the next. An alert that is cleared or dismissed meanwhile is withdrawn,
/// shown or not; one updated meanwhile (its job changed) shows its latest words. A failed
/// save of the same client shows at once and only once, although it comes both as the
/// save's answer and on the channel.
@MainActor @Observable
public final class AlertQueue {
  private var state = AlertQueueState()
  /// How the alert stream's connection is doing, for a banner ("labeld unreachable").
  public private(set) var connection: AlertStreamStatus?
  @ObservationIgnored private var gate: QueueGatedStore?
  @ObservationIgnored private var running = false
  @ObservationIgnored private var watchers: [Int: AsyncStream<AppAlert?>.Continuation] = [:]
  @ObservationIgnored private var nextWatcher = 0

  public init() {}

  /// The alert to present now; nil when there is none. Setting nil acknowledges it.
  public var current: AppAlert? {
    get { state.shown }
    set { if newValue == nil { acknowledge() } }
  }

  /// Alerts waiting behind `current`, in the order they came.
  public var waiting: [AppAlert] { state.waiting }

  /// The alert to show, for an app without SwiftUI (UIKit, AppKit, a command line): the
  /// one shown now at once, then each time it changes (nil: none left). Each use is a
  /// sequence of its own; one whose reader falls behind keeps the latest 16 changes, the
  /// last of which is what to show.
  public var presented: AsyncStream<AppAlert?> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: AppAlert?.self, bufferingPolicy: .bufferingNewest(16))
    let id = nextWatcher
    nextWatcher += 1
    watchers[id] = continuation
    continuation.yield(state.shown)
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.watchers[id] = nil }
    }
    return stream
  }

  /// Done with `current`: the next alert (if any) becomes current.
  public func acknowledge() {
    let before = state.shown
    state.acknowledge()
    changed(from: before)
  }

  /// Takes one update of an alert stream.
  public func receive(_ update: AlertUpdate) {
    let before = state.shown
    state.apply(update)
    changed(from: before)
  }

  /// After a change of the state: the position kept, and the watchers told when the
  /// alert to show is another (or the same with new words).
  private func changed(from before: AppAlert?) {
    keepPosition()
    guard state.shown != before else { return }
    for continuation in watchers.values { continuation.yield(state.shown) }
  }

  /// Takes a failed save's answer: true for `saveFailed` (the queue shows it), false for
  /// any other error, which is the caller's to show. While `run` feeds the queue, its
  /// stream shows the alert (at once when the save went through the same client), so the
  /// queue also learns when it is cleared; without a stream it is shown from here.
  @discardableResult
  public func receive(_ error: LabelError) -> Bool {
    guard case .saveFailed(let failure) = error else { return false }
    if !running {
      let before = state.shown
      state.present(failure.alert)
      changed(from: before)
    }
    return true
  }

  /// Feeds this queue from `client`'s alert stream until the task is cancelled, or until
  /// the stream ends with what no retry mends (`LabelError.isLasting`: a revoked token, a
  /// wrong pin), which it throws and sets as `connection`'s `.ended`. With
  /// `store`, the position kept is never past an alert still waiting or shown, so after a
  /// restart of the app it comes again, and nothing shown and acknowledged does.
  public func run(_ client: LabeldClient, store: (any AlertPositionStore)? = nil)
    async throws(LabelError)
  {
    gate = store.map { QueueGatedStore(store: $0) }
    running = true
    defer {
      gate = nil
      running = false
    }
    let stream = client.alerts(store: gate) { status in
      Task { @MainActor [weak self] in self?.connection = status }
    }
    do {
      for try await update in stream { receive(update) }
    } catch {
      // What no retry mends ends the run: said on `connection` too, for a banner.
      connection = .ended(error)
      throw error
    }
  }

  private func keepPosition() {
    do {
      try gate?.setFloor(state.floor)
    } catch {
      connection = .positionNotStored("\(error)")
    }
  }
}

/// `AlertQueue`'s logic, apart from Observation and the main actor.
struct AlertQueueState {
  private(set) var shown: AppAlert?
  private(set) var waiting: [AppAlert] = []
  /// Seqs shown from an answer, to skip when the stream brings them.
  private var presented: Set<UInt64> = []

  mutating func apply(_ update: AlertUpdate) {
    switch update {
    case .event(let event):
      presented = presented.filter { $0 >= event.seq }
      if presented.remove(event.seq) != nil { return }
      take(event)
    case .gap(let gap):
      for event in gap.ended { withdraw(event.id) }
    }
  }

  /// An event from an answer: shown now unless the stream already brought it.
  mutating func present(_ event: AlertEvent) {
    guard !presented.contains(event.seq), shown?.seq != event.seq,
      !waiting.contains(where: { $0.seq == event.seq })
    else { return }
    presented.insert(event.seq)
    take(event)
  }

  mutating func acknowledge() {
    shown = waiting.isEmpty ? nil : waiting.removeFirst()
  }

  /// The position a store may keep: just before the oldest alert shown or waiting.
  var floor: UInt64? {
    let seqs = waiting.map(\.seq) + (shown.map { [$0.seq] } ?? [])
    return seqs.min().map { $0 - 1 }
  }

  private mutating func take(_ event: AlertEvent) {
    guard event.state == .active else { return withdraw(event.id) }
    let alert = AppAlert(event)
    if shown?.id == alert.id {
      shown = alert
    } else if let i = waiting.firstIndex(where: { $0.id == alert.id }) {
      waiting[i] = alert
    } else if shown == nil {
      shown = alert
    } else {
      waiting.append(alert)
    }
  }

  private mutating func withdraw(_ id: String) {
    waiting.removeAll { $0.id == id }
    if shown?.id == id { acknowledge() }
  }
}

/// A position store that keeps no position past `floor` (the queue's oldest alert not yet
/// acknowledged), so that alert is handed out again after a restart of the app.
final class QueueGatedStore: AlertPositionStore {
  private struct Gate {
    var floor: UInt64?
    /// The position the stream last asked to keep.
    var wanted: UInt64?
    var target: UInt64? { wanted.map { w in floor.map { min($0, w) } ?? w } }
  }
  private let store: any AlertPositionStore
  private let gate = Mutex(Gate())

  init(store: any AlertPositionStore) { self.store = store }

  func load() throws -> UInt64? { try store.load() }

  func save(_ seq: UInt64) throws {
    let target = gate.withLock { g in
      g.wanted = seq
      return g.target
    }
    if let target { try store.save(target) }
  }

  /// Moves the floor (after the queue took an update, or an alert was acknowledged) and
  /// keeps the position it allows.
  func setFloor(_ floor: UInt64?) throws {
    let target = gate.withLock { g in
      g.floor = floor
      return g.target
    }
    if let target { try store.save(target) }
  }
}
