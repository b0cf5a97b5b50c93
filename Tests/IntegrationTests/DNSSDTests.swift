import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// DNS-SD discovery (`devices.list`, `labelctl devices`) against a real avahi-daemon on a
/// private D-Bus in a network namespace the test makes (Tests/Emulators/dnssd-env.sh): the
/// printers announced there are listed with the line that adds each, a configured one is
/// named, an IPP printer points at CUPS, and none becomes a printer by itself.
@Suite(
  .enabled(
    if: getuid() == 0
      && [
        "/usr/bin/unshare", "/usr/sbin/avahi-daemon", "/usr/bin/avahi-publish",
        "/usr/bin/dbus-daemon", "/usr/sbin/ip",
      ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
      && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libavahi-client.so.3"),
    "needs root (a network namespace), avahi-daemon, avahi-utils, dbus and iproute2 (make deps)"
  ))
struct DNSSDTests {
  static let script = Repository.emulator("dnssd-env.sh")

  /// Ends the namespace: SIGKILL to `unshare`, whose `--kill-child` takes labeld, the bus
  /// and avahi-daemon with it (a SIGTERM may be blocked in what the test runner starts).
  static func end(_ d: DaemonProcess) {
    kill(d.process.processIdentifier, SIGKILL)
    d.process.waitUntilExit()
  }

  @Test func devicesList_showsAnnouncedPrinters_andTheLineThatAddsEach() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let services = [
      "Zebra ZD420 dock|_pdl-datastream._tcp|9101|ty=Zebra ZD420|usb_MFG=Zebra Technologies"
        + "|usb_MDL=ZD420|usb_CMD=ZPL",
      "Packing table|_pdl-datastream._tcp|9100|ty=Acme Label 4|product=(Acme Label 4)",
      "Front desk|_ipp._tcp|631|rp=ipp/print|ty=Office Laser",
    ]
    let wrapper =
      [
        "/usr/bin/unshare", "-n", "-m", "-p", "-f", "--mount-proc", "--kill-child", "/bin/sh",
        Self.script, dir.path,
      ] + services + ["--"]
    let d = try DaemonProcess(
      ["--no-usb", "--printer", "packing=socket://127.0.0.1:9100,language=tspl"], wrapper: wrapper)
    defer { Self.end(d) }
    let c = try d.client()
    let result = try c.call("devices.list", as: DevicesResult.self)
    let found = try #require(result.network, "no network section: \(result.networkMessage ?? "")")
    let zebra = try #require(found.first { $0.name == "Zebra ZD420 dock" })
    #expect(
      zebra.type == "_pdl-datastream._tcp" && zebra.port == 9101 && zebra.address == "127.0.0.1")
    #expect(zebra.driver == "Zebra ZD420" && zebra.language == "zpl" && zebra.printer == nil)
    #expect(
      zebra.suggestion
        == "--printer zebra-zd420-dock=socket://127.0.0.1:9101,language=zpl,model=Zebra ZD420")
    let packing = try #require(found.first { $0.name == "Packing table" })
    #expect(packing.printer == "net:packing" && packing.suggestion == "configured as net:packing")
    let ipp = try #require(found.first { $0.name == "Front desk" })
    #expect(ipp.suggestion.contains("lpadmin -p QUEUE -E -v ipp://127.0.0.1:631/ipp/print"))
    // Found is not added: the only network printer is the configured one.
    let printers = try c.call("printers.list", as: PrintersResult.self).printers
    #expect(printers.map(\.id) == ["net:packing"])
    let table = try labelctl(["--socket", d.socketPath, "devices"])
    #expect(table.status == 0 && table.stdout.contains("Zebra ZD420 dock"))
    #expect(table.stdout.contains("--printer zebra-zd420-dock=socket://127.0.0.1:9101"))
  }

  /// labeld's printers announced when IPP listens beyond this machine: ippfind finds each
  /// as an IPP Everywhere printer (`_ipps._tcp` with `_print`), the TXT record carries
  /// what its clients read, `_universal` is there for AirPrint; a printer that goes is
  /// withdrawn, and announced again when it is back.
  @Test func ippPrinters_areAnnounced_andFoundByIppfind() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let wrapper = [
      "/usr/bin/unshare", "-n", "-m", "-p", "-f", "--mount-proc", "--kill-child", "/bin/sh",
      Self.script, dir.path, "--",
    ]
    let d = try DaemonProcess(
      [
        "--no-usb", "--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4", "--simulate",
        "ql=brother-ql", "--listen-ipp", "0.0.0.0:0", "--tls-self-signed",
      ], wrapper: wrapper)
    defer { Self.end(d) }
    try poll("both printers are announced", timeout: 30) {
      d.log.contains("dns-sd: announcing sim:zebra") && d.log.contains("dns-sd: announcing sim:ql")
    }
    // Run inside the namespace, on its bus.
    let inside =
      "nsenter -t \(d.process.processIdentifier) -n -m env DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(dir.path)/bus.sock"
    let port = try d.ippPort()
    var found = ""
    try poll("ippfind finds the printers", timeout: 30) {
      found = (try? Shell.output("\(inside) ippfind -T 5 _ipps._tcp,_print")) ?? ""
      return found.contains("/ipp/print/sim:zebra") && found.contains("/ipp/print/sim:ql")
    }
    #expect(found.contains(":\(port)/ipp/print/sim:zebra"), "\(found)")
    let browse = try Shell.output("\(inside) avahi-browse -rtp _ipps._tcp")
    let zebra = try #require(
      browse.split(separator: "\n").first {
        $0.hasPrefix("=") && $0.contains("rp=ipp/print/sim:zebra")
      },
      "\(browse)")
    for key in [
      "\"kind=label\"", "\"TLS=1.2\"", "\"Color=F\"", "\"ty=", "\"UUID=", "\"adminurl=https://",
      "\"pdl=application/octet-stream,application/pdf,image/jpeg,image/png,image/pwg-raster,image/urf\"",
      "\"URF=V1.4,CP1,PQ4,RS203,W8\"",
      // Printing needs an operator's token (the default): clients ask for it.
      "\"air=username,password\"",
    ] {
      #expect(zebra.contains(key), "\(key) in \(zebra)")
    }
    // avahi-browse writes a name's ':' as \058.
    let universal = try Shell.output("\(inside) avahi-browse -tp _universal._sub._ipps._tcp")
    #expect(
      universal.contains("sim\\058zebra") && universal.contains("sim\\058ql"), "\(universal)")
    // Gone (unplugged, as far as labeld can tell): withdrawn; back: announced again.
    try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "disconnected"])
    func listed() -> String { (try? Shell.output("\(inside) avahi-browse -rtp _ipps._tcp")) ?? "" }
    try poll("sim:zebra is withdrawn", timeout: 30) {
      let now = listed()
      return now.contains("rp=ipp/print/sim:ql") && !now.contains("rp=ipp/print/sim:zebra")
    }
    try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
    try poll("sim:zebra is announced again", timeout: 30) {
      listed().contains("rp=ipp/print/sim:zebra")
    }
  }

  /// Without avahi-daemon (as in most containers) the network section says why.
  @Test func withoutAvahi_theNetworkSectionSaysWhy() throws {
    let d = try DaemonProcess(
      ["--no-usb"],
      wrapper: [
        "/usr/bin/unshare", "-n", "-m", "-p", "-f", "--mount-proc", "--kill-child", "/usr/bin/env",
        "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent",
      ])
    defer { Self.end(d) }
    let result = try d.client().call("devices.list", as: DevicesResult.self)
    #expect(result.network == [] && result.networkMessage?.contains("avahi-daemon") == true)
  }
}
