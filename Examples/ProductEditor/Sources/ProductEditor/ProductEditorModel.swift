import Foundation
import LabelKit
import Observation

/// The Edit Product screen's model, driven by LabelKit: it loads a product, lets the
/// screen edit it, saves it (printing its label if asked), and puts every alert of the
/// channel, printer faults and failed saves alike, on the one `AlertQueue` the screen
/// presents from.
@MainActor @Observable
public final class ProductEditorModel {
  /// The screen's one source of alerts: bind a single `.alert(item:)` to `alerts.current`.
  public let alerts = AlertQueue()

  public let sku: String
  public var name = ""
  /// The price as typed ("2.49"); empty for none.
  public var price = ""
  public var barcode = ""
  /// The printer and template `saveAndPrint` uses.
  public var printer: String?
  public var template = "price-tag-62"

  /// The printers to choose from.
  public private(set) var printers: [Printer] = []
  /// A problem with what was typed (labeld's -32602), shown next to the fields: a
  /// request error, not an alert.
  public private(set) var problem: String?
  public private(set) var isSaving = false
  /// The version this screen edits: what `saveProduct` expects (0: a new product).
  public private(set) var version = 0
  /// The job the last save printed.
  public private(set) var lastJob: Job?

  /// What the screen does not show but must send back: a save replaces the product whole.
  private var currency: String?
  private var fields: [String: String]?
  private let client: LabeldClient
  private var alertTask: Task<Void, Never>?

  public init(client: LabeldClient, sku: String) {
    self.client = client
    self.sku = sku
  }

  /// Starts the alerts and loads the printers and the product (a new one if there is none).
  public func start() async {
    if alertTask == nil {
      alertTask = Task { [alerts, client] in try? await alerts.run(client) }
    }
    do {
      printers = try await client.printers()
      printer = printer ?? printers.first?.id
      try await reload()
    } catch {
      problem = "\(error)"
    }
  }

  /// Stops following the alert channel (the screen closed).
  public func stop() {
    alertTask?.cancel()
    alertTask = nil
  }

  /// Reads the stored product again: after a conflict, to edit what is stored now.
  public func reload() async throws(LabelError) {
    do {
      let product = try await client.product(sku)
      name = product.name
      price = product.price.map { "\($0)" } ?? ""
      barcode = product.barcode ?? ""
      currency = product.currency
      fields = product.fields
      version = product.version
    } catch .notFound {
      version = 0
    }
  }

  /// Saves what the screen holds, and prints its label when `print` is true. True when
  /// it was kept (the screen may close). A failed save (a conflict, a full disk) is on
  /// `alerts` once, although it comes both as the answer and on the channel; a typo is
  /// `problem`.
  @discardableResult
  public func save(print: Bool = false) async -> Bool {
    problem = nil
    let input: ProductInput
    do {
      input = try self.input()
    } catch {
      problem = error.message
      return false
    }
    isSaving = true
    defer { isSaving = false }
    do {
      let request = print ? printer.map { PrintRequest(printer: $0, template: template) } : nil
      let result = try await client.saveProduct(input, expectedVersion: version, print: request)
      version = result.product.version
      lastJob = result.job
      return true
    } catch {
      switch error {
      case .saveFailed:
        // Shown now, and only once: the queue skips the channel's copy of the same alert.
        alerts.receive(error)
      case .invalidParams(let field, let reason, _):
        problem = "\(field.replacingOccurrences(of: "product.", with: "")): \(reason)"
      default:
        problem = "\(error)"
      }
      return false
    }
  }

  /// The product as typed, checked as labeld checks it.
  private func input() throws(FieldProblem) -> ProductInput {
    var value: Decimal?
    if !price.isEmpty {
      guard let parsed = Decimal(string: price), parsed >= 0 else {
        throw FieldProblem(message: "price: \"\(price)\" is not a price")
      }
      value = parsed
    }
    let input = ProductInput(
      sku: sku, name: name, price: value, currency: currency,
      barcode: barcode.isEmpty ? nil : barcode, fields: fields)
    do {
      try input.validate()
    } catch {
      throw FieldProblem(message: "\(error.field): \(error.reason)")
    }
    return input
  }
}

/// What is wrong with a field, in words.
struct FieldProblem: Error {
  var message: String
}
