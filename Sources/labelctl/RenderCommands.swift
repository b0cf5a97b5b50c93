import FoundationEssentials
import LabelCommandLine
import LabelCore
import LabelPOSIX

/// What `render` and `preview` share: a template, its data, a target, an output file.
struct RenderOptions {
  static let specs: [OptionSpec] = [
    OptionSpec("--sku", value: "SKU", help: "Fill the template from the product SKU."),
    OptionSpec(
      "--data", value: "KEY=VALUE", repeatable: true,
      help: "Fill the template's ${KEY} with VALUE (repeatable), instead of --sku."),
    OptionSpec("--printer", value: "PRINTER", help: "Render for PRINTER's language and DPI."),
    OptionSpec(
      "--language", value: "LANGUAGE",
      help: "Render for a language instead of a printer: \(PrinterLanguage.spokenList)."),
    OptionSpec(
      "--dpi", value: "N", help: "Resolution with --language (default: the language's usual)."),
    OptionSpec(
      "--output", "-o", value: "FILE",
      help: "Write the rendered bytes to FILE ('-' is stdout). Required unless --json."),
  ]

  var template: String
  var sku: String?
  var data: [String: String]?
  var printer: String?
  var language: String?
  var dpi: Int?
  var output: String?

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    template = try arguments.positional("TEMPLATE")
    sku = arguments.value("--sku")
    data = try arguments.keyValues("--data")
    printer = arguments.value("--printer")
    language = arguments.value("--language")
    dpi = try arguments.int("--dpi", in: 100...1200)
    output = arguments.value("--output")
  }

  /// Checks the combination of options; run time, because -o depends on --json.
  func validate(json: Bool) throws(CommandError) {
    do throws(UsageError) { try check(json: json) } catch { throw .usage(error.message) }
  }

  private func check(json: Bool) throws(UsageError) {
    if (sku == nil) == (data == nil) { throw UsageError("give --sku SKU or --data KEY=VALUE") }
    if (printer == nil) == (language == nil) {
      throw UsageError("give --printer PRINTER or --language LANGUAGE")
    }
    if dpi != nil && language == nil { throw UsageError("--dpi goes with --language") }
    if output == nil && !json { throw UsageError("missing -o FILE ('-' for stdout)") }
  }

  /// Calls `labels.render` and writes the bytes to the output file.
  func run(_ context: Context, format: String) throws(CommandError) {
    var params: [String: JSONValue] = ["template": .string(template), "format": .string(format)]
    if let sku { params["sku"] = .string(sku) }
    if let data { params["data"] = .object(data.mapValues { .string($0) }) }
    if let printer { params["printer"] = .string(printer) }
    if let language { params["language"] = .string(language) }
    if let dpi { params["dpi"] = .int(dpi) }
    let result = try context.call(.labelsRender, params)
    if context.json && output == nil {
      print(Output.json(result))
      return
    }
    let rendered = try context.decode(RenderResult.self, from: result)
    guard let data = Data(base64Encoded: rendered.data) else {
      throw .failed("unexpected reply from labeld: data is not base64")
    }
    guard let output else { return }
    let bytes = [UInt8](data)
    if output == "-" {
      Output.flush()
      do {
        try PlainFile.write(bytes, descriptor: 1, name: "standard output")
      } catch {
        throw .failed("cannot write the image: \(Output.reason(error))")
      }
      return
    }
    do {
      try PlainFile.write(bytes, to: output)
    } catch {
      throw .failed("cannot write \(output): \(Output.reason(error))")
    }
    if context.json {
      print(Output.json(result))
    } else {
      var size = ""
      if let w = rendered.width, let h = rendered.height { size = ", \(w)x\(h) dots" }
      print("wrote \(output) (\(rendered.mediaType), \(bytes.count) bytes\(size))")
    }
  }
}

/// `labelctl render`: a template rendered in a printer's language or as PNG.
struct RenderCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "render",
      abstract: "Render a template to a file without printing it (labels.render).",
      usage: [
        "labelctl render TEMPLATE (--sku SKU | --data KEY=VALUE...)",
        "                (--printer PRINTER | --language LANGUAGE [--dpi N])",
        "                [--format native|png] -o FILE",
      ],
      discussion: """
        native gives the bytes the printer would receive (ZPL, Brother QL raster,
        TSPL, EPL2, DYMO LabelWriter); png gives a picture of the label (black and
        red for a printer with a red/black roll). A daemon that cannot render
        answers error 1007 (unsupported).
        """,
      options: [
        OptionSpec("--format", value: "FORMAT", help: "native (default) or png.")
      ] + RenderOptions.specs)
  }

  var options: RenderOptions
  var format: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    options = try RenderOptions(parsing: &arguments)
    format = arguments.value("--format") ?? "native"
  }

  func validate() throws(UsageError) {
    guard format == "native" || format == "png" else {
      throw UsageError("--format must be native or png, got \"\(format)\"")
    }
  }

  func run(_ context: Context) throws(CommandError) {
    try options.validate(json: context.json)
    try options.run(context, format: format)
  }
}

/// `labelctl preview`: `render --format png`.
struct PreviewCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "preview",
      abstract: "Render a template as a PNG picture of the label (labels.render).",
      usage: [
        "labelctl preview TEMPLATE (--sku SKU | --data KEY=VALUE...)",
        "                 (--printer PRINTER | --language LANGUAGE [--dpi N]) -o FILE.png",
      ],
      discussion: "The same as 'labelctl render --format png'.",
      options: RenderOptions.specs)
  }

  var options: RenderOptions

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    options = try RenderOptions(parsing: &arguments)
  }

  func run(_ context: Context) throws(CommandError) {
    try options.validate(json: context.json)
    try options.run(context, format: "png")
  }
}
