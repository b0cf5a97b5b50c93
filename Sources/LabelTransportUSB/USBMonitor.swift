import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelLog
import LabelUSB
import Synchronization

/// USB settings of the daemon.
public struct USBSettings: Sendable, Equatable {
  /// Whether labeld looks for USB printers at all (`--no-usb` turns it off).
  public var enabled = true
  public var timeouts = USBTimeouts()
  /// Status polls while a fault is held (first interval; it grows to `maxFaultPoll`).
  public var faultPoll: Duration = .milliseconds(500)
  public var maxFaultPoll: Duration = .seconds(5)
  /// Status polls of an idle printer.
  public var idlePoll: Duration = .seconds(30)
  /// Rescans of the bus when libusb has no hotplug (and as a safety net when it does).
  public var rescan: Duration = .seconds(5)
  /// Printers (ids) with a red/black roll in, which their status cannot tell
  /// (`--red-black-roll`): their 62 mm continuous roll is shown as `redBlack`.
  public var redBlackRolls: Set<String> = []
  public init() {}
}

/// Finds USB printers and keeps the registry in step with the bus: a printer appears
/// when plugged in (a `printer` notification), is marked `disconnected` when unplugged
/// (its jobs wait), and is the same printer, with the same id, when plugged in again.
/// Each printer's status is its transport's business (`USBPrinter.monitor`).
package actor USBMonitor: PrinterSource {
  private let settings: USBSettings
  private var registry: (any PrinterAdopter)?
  private let log: Logger
  private var bus: USBBus?
  /// Why USB is off, for `devices.list`.
  package private(set) var unavailable: String?
  private var printers: [String: Entry] = [:]
  private var lastScan: [USBCandidate] = []
  private var scanning = false
  private var scanAgain = false

  /// Signalled by a hotplug event: the rescans' loop looks at the bus at once.
  private nonisolated let hotplug = Wakeup()

  private struct Entry {
    let transport: USBPrinter
    var kick: Wakeup { transport.kick }
  }

  package init(settings: USBSettings, log: Logger) {
    self.settings = settings
    self.log = log
    if !settings.enabled { unavailable = "USB is switched off (--no-usb)" }
  }

  /// Opens the bus and adopts what is plugged in now. Without a usable bus (no usbfs, a
  /// container) labeld goes on without USB and says why.
  package func start(into registry: any PrinterAdopter) async {
    self.registry = registry
    guard settings.enabled else { return }
    do {
      // A hotplug event wakes the rescans' loop (on libusb's event thread: it only hands
      // the event on).
      bus = try USBBus { [hotplug] in hotplug.signal() }
    } catch {
      unavailable = "no USB bus to use: \(error)"
      log.info("USB: \(unavailable!); USB printers are not looked for")
      return
    }
    _ = await rescan()
    log.info(
      "USB: \(bus?.hasHotplug == true ? "hotplug events" : "no hotplug; rescanning every \(rescanInterval)"), "
        + "\(printers.count) printer(s)")
  }

  /// How often the bus is looked at again: a safety net with hotplug, the way printers are
  /// found without it.
  private var rescanInterval: Duration {
    bus?.hasHotplug == true ? max(settings.rescan, .seconds(30)) : settings.rescan
  }

  /// Rescans the bus every `rescanInterval` while USB is in use.
  package nonisolated var service: (any Service)? {
    LoopService("USB rescans") { [weak self] in await self?.rescanLoop() }
  }

  /// Rescans when a hotplug event comes, and every `rescanInterval` regardless.
  private func rescanLoop() async {
    guard bus != nil else { return }
    let interval = rescanInterval
    while !Task.isCancelled {
      _ = await hotplug.wait(timeout: interval)
      if Task.isCancelled { return }
      _ = await rescan()
    }
  }

  package func stop() {
    for entry in printers.values { entry.transport.stopMonitoring() }
    bus?.stop()
  }

  package func refresh() async { await rescan() }

  /// A `usb:` printer that is not here may be plugged in later (while USB is on).
  package nonisolated func absence(of printer: String) -> Absence? {
    guard settings.enabled, printer.hasPrefix(USBCandidate.idPrefix) else { return nil }
    return Absence(reason: .disconnected, phrase: "not connected (plug it in, or cancel the job)")
  }

  /// The devices as last seen (after a fresh scan).
  package func devices() async -> DevicesResult? {
    if bus != nil { _ = await rescan() }
    return DevicesResult(
      enabled: bus != nil, message: unavailable, devices: lastScan.map(\.info))
  }

  /// Looks at the bus again and brings the registry in step. Scans never overlap: one
  /// asked for during a scan runs right after it.
  @discardableResult
  package func rescan() async -> Int {
    guard let bus else { return 0 }
    if scanning {
      scanAgain = true
      return printers.count
    }
    scanning = true
    defer { scanning = false }
    repeat {
      scanAgain = false
      var known: [USBDeviceKey: USBCandidate] = [:]
      for entry in printers.values {
        if let key = entry.transport.deviceKey,
          let cached = lastScan.first(where: { $0.key == key })
        {
          known[key] = cached
        }
      }
      let found: [USBCandidate]
      do {
        found = try await bus.queue.run { [known] () throws(USBError) in
          try USBProbe.scan(context: bus.context, known: known)
        }
      } catch {
        log.warning("USB: cannot list devices: \(error)")
        return printers.count
      }
      lastScan = found
      await apply(found)
    } while scanAgain
    return printers.count
  }

  private func apply(_ found: [USBCandidate]) async {
    var present: Set<String> = []
    for candidate in found {
      guard let model = candidate.model else { continue }
      let id = candidate.printerID
      guard !present.contains(id) else { continue }
      present.insert(id)
      if let entry = printers[id] {
        if entry.transport.deviceKey != candidate.key {
          entry.transport.attach(candidate.device, interface: candidate.interface)
          log.notice("USB: \(id) is back at \(candidate.info.port)")
          entry.kick.signal()
        }
        continue
      }
      await add(candidate, model: model)
    }
    for (id, entry) in printers where !present.contains(id) && entry.transport.isAttached {
      entry.transport.detach()  // its monitor reports it disconnected
      log.notice("USB: \(id) was unplugged")
    }
  }

  private func add(_ candidate: USBCandidate, model: ModelEntry) async {
    guard let registry else { return }
    let transport: USBPrinter
    do {
      transport = try USBPrinter(candidate: candidate, model: model, settings: settings, log: log)
    } catch {
      // Every row of the driver table has its driver (LanguageDriverTests checks it): this
      // cannot happen short of a broken table.
      log.error("USB: \(candidate.printerID) matched \(model.name) but has no driver: \(error)")
      return
    }
    // Its loaded media and faults are known before it is listed (one bounded status wait).
    let first = await transport.poll()
    guard await registry.adopt(transport, faults: first.faults ?? []) else { return }
    printers[candidate.printerID] = Entry(transport: transport)
    log.notice(
      "USB: \(candidate.printerID) is a \(transport.descriptor.model) at \(candidate.info.port) "
        + "(\(candidate.info.message))")
  }
}
