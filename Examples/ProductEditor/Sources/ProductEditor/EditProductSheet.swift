// The seed's Edit Product sheet, fixed: ONE `.alert(item:)`, fed by `AlertQueue`, for
// printer faults and failed saves alike. Two alerts that arrive together are shown one
// after the other; none is dropped the way a second `.alert` modifier drops its alert.
//
// SwiftUI exists on Apple platforms only: this file compiles there and is empty on Linux
// (the command-line stand-in, product-editor, runs the same model here).
#if canImport(SwiftUI)
  import LabelKit
  import SwiftUI

  public struct EditProductSheet: View {
    @Bindable var model: ProductEditorModel
    @Environment(\.dismiss) private var dismiss

    public init(model: ProductEditorModel) { self.model = model }

    public var body: some View {
      NavigationStack {
        Form {
          Section("Product \(model.sku)") {
            TextField("Name", text: $model.name)
            TextField("Price", text: $model.price)
            TextField("Barcode (EAN-13, UPC-A…)", text: $model.barcode)
          }
          Section("Label") {
            Picker("Printer", selection: $model.printer) {
              ForEach(model.printers, id: \.id) { printer in
                Text(printer.name).tag(Optional(printer.id))
              }
            }
          }
          if let problem = model.problem {
            // A typo is the field's business, not an alert.
            Text(problem).foregroundStyle(.red)
          }
        }
        .navigationTitle("Edit Product")
        .toolbar {
          ToolbarItem(placement: .cancellationAction) { Button("Cancel") { dismiss() } }
          ToolbarItem(placement: .confirmationAction) {
            Menu("Save") {
              Button("Save") { Task { if await model.save() { dismiss() } } }
              Button("Save and Print") { Task { if await model.save(print: true) { dismiss() } } }
            }
            .disabled(model.isSaving)
          }
        }
      }
      // The only alert of the sheet. Closing it (setting `current` to nil) shows the next.
      .alert(item: $model.alerts.current) { alert in
        switch alert {
        case .printerError:
          SwiftUI.Alert(
            title: Text(alert.title), message: Text(alert.message),
            dismissButton: .cancel(Text("OK")))
        case .saveError(let details, _):
          SwiftUI.Alert(
            title: Text(alert.title), message: Text(alert.message),
            dismissButton: details.reason == .conflict
              ? .default(Text("Reload")) { Task { try? await model.reload() } }
              : .cancel(Text("OK")))
        }
      }
      .task { await model.start() }
      .onDisappear { model.stop() }
    }
  }
#endif
