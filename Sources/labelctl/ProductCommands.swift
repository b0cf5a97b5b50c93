import FoundationEssentials
import LabelCommandLine
import LabelCore

/// `labelctl products`: list, show, save, delete.
struct ProductsCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "products",
      abstract: "List, show, save and delete products.",
      usage: [
        "labelctl products [list]", "labelctl products show SKU",
        "labelctl products save --sku SKU [--name NAME] [--price P] [--currency C]",
        "                       [--barcode GTIN] [--field KEY=VALUE]... [OPTIONS]",
        "labelctl products save --file PATH [OPTIONS]", "labelctl products delete SKU",
      ],
      discussion: """
        A product's version starts at 1 and increases on every save. Template fields
        ${sku}, ${name}, ${price}, ${currency}, ${barcode} and each --field KEY are
        filled from it when a label is printed with --sku.
        """,
      subcommands: [ProductsList.self, ProductsShow.self, ProductsSave.self, ProductsDelete.self],
      defaultSubcommand: ProductsList.self)
  }
}

struct ProductsList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List products (products.list).",
      usage: ["labelctl products [list]"])
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.showAll(.productsList, key: "products", as: ProductsResult.self) { result in
      if result.products.isEmpty { return "No products.\n" }
      var table = Table("SKU", "NAME", "PRICE", "BARCODE", "VERSION", "UPDATED")
      for p in result.products {
        table.add(
          p.sku, p.name, Output.price(p.price, p.currency), p.barcode ?? "-", String(p.version),
          Output.time(p.updatedAt))
      }
      return table.text
    }
  }
}

struct ProductsShow: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "show", abstract: "Show one product in full (products.get).",
      usage: ["labelctl products show SKU"])
  }

  var sku: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    sku = try arguments.positional("SKU")
  }

  func run(_ context: Context) throws(CommandError) {
    try context.show(.productsGet, ["sku": .string(sku)], as: ProductResult.self) {
      let p = $0.product
      var pairs = [
        ("SKU", p.sku), ("Name", p.name), ("Price", Output.price(p.price, p.currency)),
        ("Barcode", p.barcode ?? "-"), ("Version", String(p.version)),
        ("Updated", Output.time(p.updatedAt)),
      ]
      for (key, value) in (p.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
        pairs.append(("Field \(key)", value))
      }
      return Output.fields(pairs)
    }
  }
}

struct ProductsSave: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "save",
      abstract: "Create or update a product, and optionally print its label (products.save).",
      usage: [
        "labelctl products save --sku SKU [--name NAME] [--price P] [--currency C]",
        "                       [--barcode GTIN] [--field KEY=VALUE]...",
        "                       [--unset NAME]... [--expected-version N]",
        "                       [--print PRINTER --template NAME [--copies N]]",
        "labelctl products save --file PATH [--expected-version N] [--print ...]",
      ],
      discussion: """
        With the options, only what they name changes: labelctl reads the stored
        product, sets the values given (--field adds or replaces one field), removes
        what --unset names, and saves it on condition that nobody changed it
        meanwhile (else error 1004, reason conflict: run it again). A new product
        needs --name. With --file, the JSON object is the whole product: anything it
        leaves out is removed, as products.save does.

        The daemon checks the product before saving: an invalid barcode or currency is
        error -32602 naming the field, and nothing is saved. With --print, the label is
        submitted only once the save is kept; a failed save prints nothing.
        """,
      options: [
        OptionSpec("--sku", value: "SKU", help: "The product's key."),
        OptionSpec("--name", value: "NAME", help: "The product's name (required when new)."),
        OptionSpec("--price", value: "P", help: "Price, a decimal number (12.50)."),
        OptionSpec("--currency", value: "C", help: "ISO 4217 code of the price (EUR)."),
        OptionSpec(
          "--barcode", value: "GTIN",
          help: "EAN-8, UPC-A, EAN-13 or GTIN-14 digits with a valid check digit."),
        OptionSpec(
          "--field", value: "KEY=VALUE", repeatable: true,
          help: "Set a free-form field for templates (repeatable); other fields are kept."),
        OptionSpec(
          "--unset", value: "NAME", repeatable: true,
          help: "Remove price, currency, barcode, or field.KEY (repeatable)."),
        OptionSpec(
          "--file", value: "PATH",
          help: "Read the whole product as a JSON object from PATH ('-' is stdin) instead "
            + "of the options above."),
        OptionSpec(
          "--expected-version", value: "N",
          help: "Save only if the stored version is N (0 for a new product); else error "
            + "1004, reason conflict. Without it, the version labelctl read."),
        OptionSpec(
          "--print", value: "PRINTER", help: "After saving, print the product's label on PRINTER."),
        OptionSpec("--template", value: "NAME", help: "The template to print with --print."),
        OptionSpec("--copies", value: "N", help: "Copies to print with --print (default 1)."),
      ])
  }

  /// What the options set (the product's own keys; `fields` holds only the --field ones).
  var changes: [String: JSONValue] = [:]
  var fields: [String: String] = [:]
  var unset: [String] = []
  var sku: String?
  var file: String?
  var expectedVersion: Int?
  var printer: String?
  var template: String?
  var copies: Int?

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    file = arguments.value("--file")
    let flagNames = [
      "--sku", "--name", "--price", "--currency", "--barcode", "--field", "--unset",
    ]
    if file != nil, let given = flagNames.first(where: arguments.flag) {
      throw UsageError("\(given) cannot be combined with --file")
    }
    sku = arguments.value("--sku")
    for (key, flag) in [("name", "--name"), ("currency", "--currency"), ("barcode", "--barcode")] {
      if let value = arguments.value(flag) { changes[key] = .string(value) }
    }
    if let text = arguments.value("--price") {
      // The daemon reads a JSON number; a string would be rejected as ill-typed.
      guard let price = Double(text), price.isFinite else {
        throw UsageError("--price must be a decimal number, got \"\(text)\"")
      }
      changes["price"] = .double(price)
    }
    fields = try arguments.keyValues("--field") ?? [:]
    unset = arguments.values("--unset")
    for name in unset {
      let removable = ["price", "currency", "barcode"]
      guard removable.contains(name) || (name.hasPrefix("field.") && name.count > 6) else {
        throw UsageError("--unset takes price, currency, barcode or field.KEY, not '\(name)'")
      }
      if changes[name] != nil
        || fields[String(name.dropFirst(6))] != nil && name.hasPrefix("field.")
      {
        throw UsageError("--unset \(name) contradicts a value given for it")
      }
    }
    expectedVersion = try arguments.int("--expected-version", in: 0...Int.max)
    printer = arguments.value("--print")
    template = arguments.value("--template")
    copies = try arguments.int("--copies", in: 1...999)
  }

  func validate() throws(UsageError) {
    if file == nil && sku == nil { throw UsageError("missing --sku SKU (or --file PATH)") }
    if printer != nil && template == nil { throw UsageError("--print needs --template NAME") }
    if printer == nil && (template != nil || copies != nil) {
      throw UsageError("--template and --copies go with --print PRINTER")
    }
  }

  func run(_ context: Context) throws(CommandError) {
    var params: [String: JSONValue]
    if let file {
      params = ["product": try readJSONObject(file, what: "a product")]
      if let expectedVersion { params["expectedVersion"] = .int(expectedVersion) }
    } else {
      let (product, version) = try merged(context)
      params = ["product": product, "expectedVersion": .int(expectedVersion ?? version)]
    }
    if let printer, let template {
      var print: [String: JSONValue] = ["printer": .string(printer), "template": .string(template)]
      if let copies { print["copies"] = .int(copies) }
      params["print"] = .object(print)
    }
    try context.show(.productsSave, params, as: ProductSaveResult.self) { result in
      var text = "saved product \(result.product.sku) (version \(result.product.version))\n"
      if let job = result.job {
        text += "job \(job.id) submitted to \(job.printer) (\(Output.copies(job.copies)))\n"
      }
      return text
    }
  }

  /// The product to save: the stored one with the options applied, and the version read
  /// (0: there is none yet). products.save replaces a product whole, so what the options
  /// do not name must be sent back as stored, or it would be lost.
  private func merged(_ context: Context) throws(CommandError) -> (JSONValue, Int) {
    guard let sku else { throw .usage("missing --sku SKU (or --file PATH)") }
    var product: [String: JSONValue]
    var version = 0
    do {
      let stored = try context.call(.productsGet, ["sku": .string(sku)])["product"]
      product = stored?.objectValue ?? [:]
      version = product["version"]?.intValue ?? 0
      product["version"] = nil
      product["updatedAt"] = nil
    } catch .daemon(let e) where e.knownCode == .notFound {
      guard changes["name"] != nil else {
        throw .usage("product \(sku) does not exist yet: --name NAME is required")
      }
      product = ["sku": .string(sku)]
    }
    for (key, value) in changes { product[key] = value }
    var storedFields = product["fields"]?.objectValue ?? [:]
    for (key, value) in fields { storedFields[key] = .string(value) }
    for name in unset {
      if name.hasPrefix("field.") {
        storedFields[String(name.dropFirst(6))] = nil
      } else {
        product[name] = nil
      }
    }
    product["fields"] = storedFields.isEmpty ? nil : .object(storedFields)
    return (.object(product), version)
  }
}

struct ProductsDelete: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "delete", abstract: "Delete a product (products.delete).",
      usage: ["labelctl products delete SKU"])
  }

  var sku: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    sku = try arguments.positional("SKU")
  }

  func run(_ context: Context) throws(CommandError) {
    try context.show(.productsDelete, ["sku": .string(sku)], as: DeletedResult.self) { _ in
      "deleted product \(sku)\n"
    }
  }
}
