import LabelCore
import Testing

@testable import LabelWeb

/// `/metrics` as text: the families the shipped Prometheus rules (contrib/prometheus) read,
/// with the names and labels they match on.
@Suite struct MetricsTests {
  private func lines(_ m: MetricsSnapshot) -> [String] {
    String(decoding: m.text(), as: UTF8.self).split(separator: "\n").map(String.init)
  }

  private func printer(_ id: String, reasons: [Reason] = [], labels: Int? = nil) -> Printer {
    var p = Printer(
      id: id, name: id, transport: .sim, model: "sim", language: .zpl, dpi: 203,
      state: reasons.isEmpty ? .idle : .stopped, reasons: reasons)
    p.labelsRemaining = labels
    return p
  }

  @Test func oldestJob_perPrinter_zeroWhenNoneWaits_andForAPrinterGone() {
    var m = MetricsSnapshot()
    m.printers = [printer("sim:zebra", reasons: [.mediaEmpty]), printer("sim:ql", labels: 40)]
    // A job waits for a printer labeld no longer lists (a USB printer unplugged).
    m.oldestJobSeconds = ["sim:zebra": 125, "usb:04f9:209d:A1": 7]
    let text = lines(m)
    #expect(text.contains("# TYPE labeld_printer_oldest_job_seconds gauge"))
    #expect(
      text.filter { $0.hasPrefix("labeld_printer_oldest_job_seconds{") } == [
        #"labeld_printer_oldest_job_seconds{printer="sim:ql"} 0"#,
        #"labeld_printer_oldest_job_seconds{printer="sim:zebra"} 125"#,
        #"labeld_printer_oldest_job_seconds{printer="usb:04f9:209d:A1"} 7"#,
      ])
    #expect(text.contains(#"labeld_printer_up{printer="sim:zebra"} 0"#))
    #expect(text.contains(#"labeld_printer_labels_remaining{printer="sim:ql"} 40"#))
  }

  @Test func overflowedClients_areACounter() {
    var m = MetricsSnapshot()
    #expect(lines(m).contains("labeld_clients_overflowed_total 0"))
    m.clientsOverflowed = 3
    let text = lines(m)
    #expect(text.contains("# TYPE labeld_clients_overflowed_total counter"))
    #expect(text.contains("labeld_clients_overflowed_total 3"))
    #expect(!text.contains { $0.hasPrefix("labeld_printer_oldest_job_seconds{") })
  }
}
