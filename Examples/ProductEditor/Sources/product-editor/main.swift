// product-editor: the Edit Product sheet's command-line stand-in. It drives the same
// ProductEditorModel the SwiftUI sheet does and shows the sheet's one alert slot as
// lines: each alert printed, then acknowledged (the OK button), then the next.
//
//   product-editor [--socket PATH] --sku SKU [--name NAME] [--price P] [--barcode GTIN]
//                  [--print PRINTER [--template NAME]] [--edited-elsewhere]
//                  [--alerts N] [--wait SECONDS]
//
// --edited-elsewhere saves the product from a second client (another device) after this
// one loaded it, so this save meets a conflict. --alerts N waits for N alerts (default 0:
// shows those that come within --wait seconds, default 1).
import Foundation
import LabelKit
import Observation
import ProductEditor
import Synchronization

var options: [String: String] = [:]
var flags: Set<String> = []
var words = CommandLine.arguments.dropFirst()[...]
while let word = words.popFirst() {
  if word == "--edited-elsewhere" {
    flags.insert(word)
  } else if word.hasPrefix("--"), let value = words.popFirst() {
    options[word] = value
  } else {
    FileHandle.standardError.write(Data("product-editor: unexpected '\(word)'\n".utf8))
    exit(64)
  }
}
guard let sku = options["--sku"] else {
  FileHandle.standardError.write(Data("usage: product-editor --sku SKU [options]\n".utf8))
  exit(64)
}

let client = LabeldClient(socketPath: options["--socket"])
let model = ProductEditorModel(client: client, sku: sku)
await model.start()
print("editing \(sku) (version \(model.version))")

if flags.contains("--edited-elsewhere") {
  // Another device saves the product meanwhile.
  let other = LabeldClient(socketPath: client.socketPath)
  let stored = try await other.product(sku)
  let edited = ProductInput(
    sku: sku, name: stored.name + " (edited elsewhere)", price: stored.price,
    currency: stored.currency, barcode: stored.barcode, fields: stored.fields)
  _ = try await other.saveProduct(edited, expectedVersion: stored.version)
}

if let name = options["--name"] { model.name = name }
if let price = options["--price"] { model.price = price }
if let barcode = options["--barcode"] { model.barcode = barcode }
if let printer = options["--print"] { model.printer = printer }
if let template = options["--template"] { model.template = template }

if await model.save(print: options["--print"] != nil) {
  print("saved \(sku) (version \(model.version))")
  if let job = model.lastJob { print("printing job \(job.id) on \(job.printer)") }
} else if let problem = model.problem {
  print("not saved: \(problem)")
} else {
  print("not saved")
}

/// The next alert the sheet would present, waiting until one is there or `deadline` passes:
/// woken by Observation when `current` changes, not by polling.
@MainActor func presented(by queue: AlertQueue, before deadline: ContinuousClock.Instant) async
  -> AppAlert?
{
  while ContinuousClock.now < deadline {
    if let alert = queue.current { return alert }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let once = Mutex<CheckedContinuation<Void, Never>?>(continuation)
      let resume = { @Sendable in once.withLock { $0.take() }?.resume() }
      withObservationTracking {
        _ = queue.current
      } onChange: {
        resume()
      }
      Task { @MainActor in
        try? await Task.sleep(until: deadline)
        resume()
      }
    }
  }
  return queue.current
}

let wanted = Int(options["--alerts"] ?? "0") ?? 0
let seconds = Double(options["--wait"] ?? (wanted > 0 ? "20" : "1")) ?? 1
let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
var shown = 0
while wanted == 0 || shown < wanted {
  guard let alert = await presented(by: model.alerts, before: deadline) else { break }
  print("ALERT \(alert.title): \(alert.message)")
  shown += 1
  model.alerts.acknowledge()  // OK
}
model.stop()
if shown < wanted {
  print("only \(shown) of \(wanted) alerts came")
  exit(1)
}
