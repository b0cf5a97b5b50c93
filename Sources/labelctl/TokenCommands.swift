import LabelCommandLine
import LabelCore

/// `labelctl tokens`: the bearer tokens apps and the status page sign in with over the
/// web endpoint.
struct TokensCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "tokens",
      abstract: "Make, list and revoke the web endpoint's tokens (administrators).",
      usage: [
        "labelctl tokens [list]", "labelctl tokens create NAME --role viewer|operator|admin",
        "labelctl tokens revoke NAME",
      ],
      discussion: """
        Apps on other devices and the status page reach labeld over the web endpoint
        (labeld --listen-http) with a bearer token. A viewer token reads and subscribes;
        an operator token also prints, saves and dismisses alerts; an admin token may do
        everything. labeld keeps only each token's SHA-256: the secret is printed once,
        when it is made. Revoking a token closes its open connections at once.
        """,
      subcommands: [TokensList.self, TokensCreate.self, TokensRevoke.self],
      defaultSubcommand: TokensList.self)
  }
}

struct TokensList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List the tokens (tokens.list): names, roles, when made.",
      usage: ["labelctl tokens [list]"])
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.show(.tokensList, as: TokensResult.self) { result in
      guard !result.tokens.isEmpty else { return "No tokens.\n" }
      var table = Table("NAME", "ROLE", "CREATED")
      for t in result.tokens { table.add(t.name, t.role, t.createdAt) }
      return table.text
    }
  }
}

struct TokensCreate: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "create", abstract: "Make a token and print its secret, once (tokens.create).",
      usage: ["labelctl tokens create NAME --role viewer|operator|admin"],
      discussion: """
        NAME is 1 to 64 letters, digits, '.', '_' or '-' (say which device or person it
        is for). The secret is printed on its own line; keep it where the app can read
        it. A browser signs in with the link http(s)://HOST:PORT/#token=SECRET.
        """,
      options: [
        OptionSpec("--role", value: "ROLE", help: "viewer, operator or admin (required).")
      ])
  }

  var name: String
  var role: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    name = try arguments.positional("NAME")
    guard let role = arguments.value("--role") else {
      throw UsageError("--role is required: viewer, operator or admin")
    }
    self.role = role
  }

  func run(_ context: Context) throws(CommandError) {
    let result = try context.call(
      .tokensCreate, ["name": .string(name), "role": .string(role)])
    let created = try context.decode(TokenCreated.self, from: result)
    if context.json {
      print(Output.json(result))
    } else {
      print("token \(created.token.name) (\(created.token.role)); its secret, shown once:")
      print(created.secret)
    }
  }
}

struct TokensRevoke: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "revoke", abstract: "Revoke a token and close its connections (tokens.revoke).",
      usage: ["labelctl tokens revoke NAME"],
      discussion: "Exits 1 when there is no token of that name.")
  }

  var name: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    name = try arguments.positional("NAME")
  }

  func run(_ context: Context) throws(CommandError) {
    let result = try context.call(.tokensRevoke, ["name": .string(name)])
    let revoked = try context.decode(RevokeResult.self, from: result)
    if context.json {
      print(Output.json(result))
    } else if revoked.revoked {
      print("revoked \(name); \(revoked.closed) connection(s) closed")
    }
    if !revoked.revoked { throw .failed("no token named \(name)") }
  }
}
