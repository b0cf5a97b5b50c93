import LabelCore

/// Everything the method handlers use, wired once at start-up.
struct Services: Sendable {
  let channel: EventChannel
  let printers: PrinterRegistry
  let products: ProductStore
  let templates: TemplateStore
  let jobs: JobService
  let renderer: LabelRenderer
  let saveErrors: SaveErrors
  let log: Logger
}
