import LabelCommandLine
import LabelCore

/// `labelctl templates`: list, show, save.
struct TemplatesCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "templates",
      abstract: "List, show and save label templates.",
      usage: [
        "labelctl templates [list]", "labelctl templates show NAME",
        "labelctl templates save PATH",
      ],
      discussion: """
        A template is a JSON object: {"name", "media": {"widthMM", "lengthMM"},
        "elements": [...]}, each element a text, barcode (ean13, upca, code128, qr), box
        or line placed in millimetres from the top-left corner. ${field} in text and
        barcode data is filled from a product or --data when a label is printed.
        """,
      subcommands: [TemplatesList.self, TemplatesShow.self, TemplatesSave.self],
      defaultSubcommand: TemplatesList.self)
  }
}

struct TemplatesList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List templates (templates.list).",
      usage: ["labelctl templates [list]"])
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.showAll(.templatesList, key: "templates", as: TemplatesResult.self) { result in
      if result.templates.isEmpty { return "No templates.\n" }
      var table = Table("NAME", "MEDIA", "ELEMENTS", "FIELDS")
      for t in result.templates {
        let media = "\(Output.number(t.media.widthMM))x\(Output.number(t.media.lengthMM)) mm"
        let fields = t.referencedFields.sorted().joined(separator: ",")
        table.add(t.name, media, String(t.elements.count), fields.isEmpty ? "-" : fields)
      }
      return table.text
    }
  }
}

struct TemplatesShow: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "show",
      abstract: "Print a template as JSON, ready to edit and save again (templates.get).",
      usage: ["labelctl templates show NAME"])
  }

  var name: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    name = try arguments.positional("NAME")
  }

  func run(_ context: Context) throws(CommandError) {
    let result = try context.call(.templatesGet, ["name": .string(name)])
    // Without --json, the template object alone: what `templates save` reads back.
    print(Output.json(context.json ? result : result["template"] ?? .null))
  }
}

struct TemplatesSave: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "save",
      abstract: "Create or replace a template from a JSON file (templates.save).",
      usage: ["labelctl templates save PATH"],
      discussion: """
        PATH ('-' is stdin) holds one template object, as 'labelctl templates show'
        prints it. The daemon checks it first: an element outside the media or barcode
        data that cannot be encoded is error -32602 naming the field.
        """)
  }

  var path: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    path = try arguments.positional("PATH")
  }

  func run(_ context: Context) throws(CommandError) {
    let template = try readJSONObject(path, what: "a template")
    try context.show(.templatesSave, ["template": template], as: TemplateResult.self) {
      "saved template \($0.template.name)\n"
    }
  }
}
