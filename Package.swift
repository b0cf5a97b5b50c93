// swift-tools-version: 6.0
// labeld: a label-printer driver and print-job daemon. See docs/architecture.md for the layers.
import PackageDescription

let package = Package(
  name: "labeld",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    // The client kit for apps: `.package(path:)` or `url:` this repository, then
    // `.product(name: "LabelKit", package: "labeld")` and `import LabelKit`.
    .library(name: "LabelKit", targets: ["LabelKit"]),
    // LabelKit over labeld's web endpoint (WebSocket, TLS with a pinned certificate), for
    // apps on other devices: `LabeldClient(route: .webSocket(url:token:pinnedSHA256:))`.
    .library(name: "LabelKitWeb", targets: ["LabelKitWeb"]),
    .executable(name: "labeld", targets: ["labeld"]),
    .executable(name: "labelctl", targets: ["labelctl"]),
  ],
  targets: [
    // Pure Swift: model, Reason, the alert type, protocol messages. Never imports C.
    .target(name: "LabelCore"),
    // The protocol's wire form: the one JSON stack (`JSONValue.parse` reads, `JSONWriter`
    // and `JSONOutput` write), the protocol types written and read, `Wire` (messages),
    // RFC 3339 times. Pure Swift; the client kit uses it too.
    .target(name: "LabelWire", dependencies: ["LabelCore"]),
    // How labeld waits and runs: `BlockingQueue` (the one way to call blocking C from async
    // code), `ServiceGroup` (every long-running loop, started and stopped in order),
    // `Wakeup`. Pure Swift on Dispatch; the client kit uses it too.
    .target(name: "LabelConcurrency"),
    // SQLite, through one small C module and a typed wrapper (one owner per handle).
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "LabelSQLite", dependencies: ["CSQLite"]),
    // Printer languages: bitmaps and codecs, ZPL II and Brother QL encoders, status parsers.
    // Pure Swift on top of the core model.
    .target(name: "LabelLanguages", dependencies: ["LabelCore"]),
    // Rendering: cairo + pango (text with fontconfig fonts) and libzint (barcodes), each
    // through one small C module, turning templates into device bitmaps and PNG previews.
    // Both are loaded on first use (dlopen): each C module defines the functions labeld
    // calls as stubs that find the real ones then (lazy.c, from scripts/lazy-stubs.py), so
    // a labeld that never draws never maps the drawing stack (apt: libcairo2-dev,
    // libpango1.0-dev, libzint-dev for the headers). zlib deflates the PNG previews labeld
    // writes itself, libpng reads 8-bit greyscale PNGs straight to dots (zlib1g-dev and
    // libpng-dev, which libcairo2-dev brings).
    .target(name: "CCairo"),
    .target(name: "CZint"),
    .target(name: "CZlib"),
    .target(name: "CPNG"),
    // Documents an IPP client sends: JPEG through libjpeg (its errors are longjmps, so a C
    // file reads it) and PDF through poppler-glib onto cairo, each one small C module that
    // owns its library's objects, opened on first use (apt: libjpeg-dev,
    // libpoppler-glib-dev for the headers).
    .target(name: "CJPEG"),
    .target(name: "CPoppler"),
    .target(
      name: "LabelRender",
      dependencies: [
        "LabelCore", "LabelLanguages", "LabelPOSIX", "CCairo", "CZint", "CZlib", "CPNG",
        "CJPEG", "CPoppler",
      ]),
    // libcups, through one small C module (Debian 12 has no cups.pc: no pkgConfig) and a
    // typed wrapper: one owner per handle, calls on the client's own queue, IPP → Reason table.
    // Loaded on first use like the drawing stack (apt: libcups2-dev for the headers).
    .target(name: "CCUPS"),
    .target(
      name: "LabelCUPS", dependencies: ["CCUPS", "LabelCore", "LabelPOSIX", "LabelConcurrency"]),
    // libusb, through one small C module and a typed wrapper (one owner per context,
    // device and handle; `USBError` for libusb codes).
    .systemLibrary(
      name: "CLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
    .target(name: "LabelUSB", dependencies: ["CLibUSB"]),
    // Thin POSIX layer: errno-safe syscalls, Unix sockets, peer credentials, socket paths.
    // Linux epoll and eventfd (part of libc: no library to link).
    .systemLibrary(name: "CLinux"),
    .target(name: "LabelPOSIX", dependencies: ["CLinux"]),
    // The daemon's layers, bottom up (docs/architecture.md draws the graph; ModuleGraphTests
    // checks it). The log: journald-prefixed lines on stderr.
    .target(name: "LabelLog"),
    // The one alert channel: journal, sequence, subscribers, save failures as alerts.
    .target(
      name: "LabelEvents",
      dependencies: ["LabelCore", "LabelWire", "LabelLog", "LabelPOSIX", "LabelConcurrency"]),
    // labeld's state in SQLite: products, templates, jobs, the alert journal.
    .target(
      name: "LabelStore",
      dependencies: [
        "LabelCore", "LabelWire", "LabelSQLite", "LabelEvents", "LabelLog", "LabelConcurrency",
        "LabelInterfaces",
      ]),
    // The interfaces the layers meet at, and nothing else: what a transport is
    // (`PrinterTransport`, `PrinterStatusSink`, `TransportError`, `PrinterSource`,
    // `PrinterAdopter`) and what the scheduler needs of the jobs' store (`JobStoring`).
    // Transports and the scheduler depend on it, never on the store or on each other.
    .target(name: "LabelInterfaces", dependencies: ["LabelCore", "LabelConcurrency"]),
    // The scheduler: one queue per printer, the registry, jobs. Built on the interfaces, not
    // on the SQLite store (the composition root hands it one).
    .target(
      name: "LabelScheduler",
      dependencies: ["LabelCore", "LabelEvents", "LabelLog", "LabelInterfaces"]),
    // Transports, one module each, seeing only the transport interfaces and the drivers.
    .target(
      name: "LabelTransportSim",
      dependencies: [
        "LabelCore", "LabelInterfaces", "LabelLanguages", "LabelPOSIX", "LabelCommandLine",
      ]),
    .target(
      name: "LabelTransportCUPS",
      dependencies: [
        "LabelCore", "LabelInterfaces", "LabelConcurrency", "LabelLanguages", "LabelCUPS",
        "LabelLog", "LabelPOSIX",
      ]),
    .target(
      name: "LabelTransportUSB",
      dependencies: [
        "LabelCore", "LabelInterfaces", "LabelConcurrency", "LabelLanguages", "LabelUSB",
        "LabelLog",
      ]),
    // Avahi's client library for DNS-SD discovery, through one small C module that owns
    // every Avahi object in one call, loaded on first use like libcups (apt:
    // libavahi-client-dev for the headers).
    .target(name: "CAvahi"),
    // DNS-SD through Avahi: browsing (network printers) and announcing (labeld's own IPP
    // printers); the one importer of CAvahi.
    .target(name: "LabelDNSSD", dependencies: ["CAvahi", "LabelPOSIX"]),
    .target(
      name: "LabelTransportNet",
      dependencies: [
        "LabelCore", "LabelInterfaces", "LabelConcurrency", "LabelLanguages", "LabelPOSIX",
        "LabelLog", "LabelDNSSD", "LabelCommandLine",
      ]),
    // The one way a label is printed, whichever front asks: checks, rendering (templates,
    // PNGs, documents) and the job stored within the queue's bounds. Knows no protocol.
    .target(
      name: "LabelPrint",
      dependencies: [
        "LabelCore", "LabelEvents", "LabelStore", "LabelScheduler", "LabelRender",
        "LabelLanguages", "LabelLog", "LabelInterfaces", "LabelCUPS", "LabelPOSIX",
        "LabelConcurrency",
      ]),
    // The socket: connections, the dispatcher, the methods, access policy.
    .target(
      name: "LabelServer",
      dependencies: [
        "LabelCore", "LabelWire", "LabelPOSIX", "LabelEvents", "LabelStore", "LabelScheduler",
        "LabelPrint", "LabelLanguages", "LabelLog", "LabelInterfaces", "LabelRender",
      ]),
    // The composition root: configuration, start-up, shutdown, reload.
    // The HTTP endpoint: libmicrohttpd parses HTTP and runs TLS on GnuTLS, one C module
    // (both opened on first use, like the drawing stack: lazy-*.c from
    // scripts/lazy-stubs.py; apt: libmicrohttpd-dev, libgnutls28-dev), a typed wrapper
    // (one owner per handle), and the web room: WebSocket framing into the Unix socket's
    // connection pipeline, tokens, the status page and /metrics.
    // RFC 6455 in pure Swift, for both ends: frames read and written, the handshake's
    // keys and checks, UTF-8 as it arrives. labeld's WebSocket framing and LabelKit's
    // WebSocket transport are built on it, so the two cannot drift apart.
    .target(name: "LabelWebSocket"),
    .target(name: "CHTTP"),
    .target(name: "LabelHTTP", dependencies: ["CHTTP", "LabelPOSIX"]),
    .target(
      name: "LabelWeb",
      dependencies: [
        "LabelHTTP", "LabelServer", "LabelCore", "LabelStore", "LabelLog", "LabelPOSIX",
        "LabelWire", "LabelWebSocket",
      ],
      resources: [
        .embedInCode("Assets/index.html"), .embedInCode("Assets/style.css"),
        .embedInCode("Assets/client.js"), .embedInCode("Assets/page.js"),
        .embedInCode("Assets/reasons.js"),
      ]),
    // The IPP front: every printer an IPP Everywhere printer at /ipp/print/ID, on the same
    // HTTP server as the web endpoint, IPP read and written by libcups, jobs made through
    // the one print service.
    .target(
      name: "LabelIPP",
      dependencies: [
        "LabelHTTP", "LabelCUPS", "LabelPrint", "LabelScheduler", "LabelStore", "LabelCore",
        "LabelLog", "LabelPOSIX", "LabelRender", "LabelLanguages", "LabelDNSSD", "LabelEvents",
      ]),
    .target(
      name: "LabelDaemon",
      dependencies: [
        "LabelCore", "LabelWire", "LabelPOSIX", "LabelLog", "LabelEvents", "LabelStore",
        "LabelScheduler",
        "LabelInterfaces", "LabelConcurrency", "LabelTransportSim", "LabelTransportCUPS",
        "LabelTransportUSB", "LabelTransportNet", "LabelServer", "LabelWeb", "LabelPrint",
        "LabelIPP", "LabelHTTP",
      ]),
    // The test kit: a fake transport, a store in memory and the daemon's parts wired for
    // unit tests of the queue and the dispatcher.
    .target(
      name: "LabelTestKit",
      dependencies: [
        "LabelCore", "LabelWire", "LabelLog", "LabelEvents", "LabelStore", "LabelScheduler",
        "LabelServer",
        "LabelPOSIX", "LabelLanguages", "LabelInterfaces", "LabelKit", "LabelLoad", "LabelRender",
        "LabelPrint", "LabelCUPS",
      ]),
    // Both executables' command lines: option specs, one reader of words, the help layout.
    .target(name: "LabelCommandLine", dependencies: ["LabelCore"]),
    // The client kit (docs/clients.md): an actor client with typed calls, alert streams
    // that hand out every event exactly once, job updates across restarts, AlertQueue; and
    // the blocking connection labelctl and the tests use. Builds for Linux and Apple
    // platforms: the operating system is in one file (System.swift).
    .target(name: "LabelKit", dependencies: ["LabelCore", "LabelWire", "LabelConcurrency"]),
    // The mixed load of issue #13 (clients, fault toggling, per-interval counts) and /proc
    // metrics, shared by `make soak` (labeld-bench --soak) and the soak test.
    .target(name: "LabelLoad", dependencies: ["LabelKit", "LabelCore"]),
    // LabelKit's TLS client on Linux: GnuTLS through one small C module, opened on first
    // use (apt: libgnutls28-dev for the header). Apple platforms use Network.framework.
    .target(name: "CGnuTLS"),
    .target(
      name: "LabelKitWeb",
      dependencies: [
        "LabelKit", "LabelWebSocket",
        .target(name: "CGnuTLS", condition: .when(platforms: [.linux])),
      ]),
    .executableTarget(
      name: "labeld",
      dependencies: ["LabelDaemon", "LabelCore", "LabelPOSIX", "LabelLog", "LabelCommandLine"]),
    .executableTarget(
      name: "labelctl",
      dependencies: ["LabelKit", "LabelCore", "LabelWire", "LabelPOSIX", "LabelCommandLine"]),
    // `make bench`: latency, fan-out and memory of a running labeld (not part of CI);
    // `make soak`: the mixed load for SOAK_MINUTES with a verdict.
    .executableTarget(
      name: "labeld-bench",
      dependencies: [
        "LabelKit", "LabelKitWeb", "LabelCore", "LabelWire", "LabelPOSIX", "LabelSQLite",
        "LabelStore",
        "LabelLanguages",
        "LabelRender", "LabelLoad", "LabelTestKit", "LabelCommandLine",
      ]),
    .testTarget(name: "LabelCoreTests", dependencies: ["LabelCore", "LabelWire"]),
    .testTarget(name: "LabelKitTests", dependencies: ["LabelKit", "LabelCore", "LabelWire"]),
    .testTarget(name: "LabelPOSIXTests", dependencies: ["LabelPOSIX"]),
    .testTarget(name: "LabelConcurrencyTests", dependencies: ["LabelConcurrency"]),
    .testTarget(
      name: "LabelWebTests",
      dependencies: [
        "LabelWeb", "LabelServer", "LabelCore", "LabelTestKit", "LabelPOSIX", "LabelLog",
        "LabelHTTP",
      ]),
    .testTarget(name: "LabelCommandLineTests", dependencies: ["LabelCommandLine", "LabelCore"]),
    .testTarget(
      name: "LabelWebSocketTests",
      dependencies: [
        "LabelWebSocket", "LabelKitWeb", "LabelKit", "LabelWire", "LabelHTTP", "LabelTestKit",
      ]),
    .testTarget(
      name: "LabelIPPTests", dependencies: ["LabelIPP", "LabelCUPS", "LabelCore", "LabelTestKit"]),
    .testTarget(
      name: "LabelPrintTests",
      dependencies: [
        "LabelPrint", "LabelCUPS", "LabelCore", "LabelLanguages", "LabelRender", "LabelTestKit",
      ]),
    .testTarget(
      name: "LabelServerTests",
      dependencies: [
        "LabelServer", "LabelCore", "LabelEvents", "LabelLog", "LabelPOSIX", "LabelTestKit",
        "LabelWire",
      ]),
    .testTarget(name: "LabelCUPSTests", dependencies: ["LabelCUPS", "LabelCore", "LabelTestKit"]),
    .testTarget(
      name: "LabelLanguagesTests", dependencies: ["LabelLanguages", "LabelCore", "LabelWire"]),
    .testTarget(
      name: "LabelRenderTests",
      dependencies: ["LabelRender", "LabelLanguages", "LabelCore", "LabelTestKit"]),
    .testTarget(
      name: "LabelEventsTests",
      dependencies: ["LabelEvents", "LabelCore", "LabelWire", "LabelLog"]),
    .testTarget(
      name: "LabelStoreTests",
      dependencies: [
        "LabelStore", "LabelSQLite", "LabelCore", "LabelWire", "LabelLog", "LabelEvents",
        "LabelServer", "LabelInterfaces",
      ]),
    .testTarget(
      name: "LabelSchedulerTests",
      dependencies: ["LabelScheduler", "LabelCore", "LabelInterfaces", "LabelTestKit"]),
    .testTarget(
      name: "LabelTransportCUPSTests",
      dependencies: ["LabelTransportCUPS", "LabelCUPS", "LabelCore"]),
    .testTarget(
      name: "LabelTransportNetTests", dependencies: ["LabelTransportNet", "LabelCore"]),
    .testTarget(
      name: "LabelTransportUSBTests",
      dependencies: ["LabelTransportUSB", "LabelUSB", "LabelLanguages", "LabelCore"]),
    .testTarget(
      name: "LabelTransportSimTests",
      dependencies: [
        "LabelTransportSim", "LabelCore", "LabelWire", "LabelEvents", "LabelLog",
        "LabelScheduler", "LabelServer", "LabelStore", "LabelPrint",
      ]),
    .testTarget(
      name: "LabelUSBTests", dependencies: ["LabelUSB", "LabelLanguages", "LabelTestKit"]),
    .testTarget(
      name: "IntegrationTests",
      dependencies: [
        "LabelKit", "LabelCore", "LabelWire", "LabelPOSIX", "LabelLanguages", "LabelRender",
        "LabelSQLite", "LabelKitWeb",
        "LabelLoad", "LabelTestKit", "labeld", "labelctl",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
