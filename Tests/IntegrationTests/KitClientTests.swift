import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// LabelKit's client against a real labeld: typed calls and results, every error code as
/// its typed case, reconnecting after a restart, and what an unreachable socket says.
@Suite struct KitClientTests {
  /// tokens.create/list/revoke through the kit (the test's labeld runs as this user: an
  /// administrator); the secret is in the creation's result only.
  @Test func webTokens_madeListedRevoked() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      let made = try await client.createToken(name: "kit", role: "operator")
      #expect(made.token.name == "kit" && made.token.role == "operator")
      #expect(made.secret.hasPrefix("ldt_") && made.secret.count == 47)
      #expect(try await client.tokens().map(\.name) == ["kit"])
      #expect(try await client.revokeToken(name: "kit") == RevokeResult(revoked: true, closed: 0))
      #expect(try await client.tokens().isEmpty)
      await #expect(throws: LabelError.self) {
        try await client.createToken(name: "bad name", role: "operator")
      }
    }
  }

  @Test func typedCalls_returnTheProtocolsModelTypes() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      let hello = try await client.hello(client: "kit-test")
      #expect(hello.server == "labeld" && hello.protocol == 1)
      let printers = try await client.printers()
      #expect(printers.map(\.id).sorted() == ["sim:ql", "sim:zebra"])
      #expect(try await client.printer("sim:ql").language == .brotherQL)

      let saved = try await client.saveProduct(
        ProductInput(
          sku: "KIT-1", name: "Kit product", price: 2.5, currency: "EUR",
          barcode: "4006381333931"),
        expectedVersion: 0)
      #expect(saved.product.version == 1 && saved.job == nil)
      #expect(try await client.product("KIT-1").barcode == "4006381333931")
      let page = try await client.products(limit: 10)
      #expect(page.products.map(\.sku) == ["KIT-1"] && page.next == nil)

      let template = try LabelJSON.decode(Template.self, from: Fixtures.shelfTemplate)
      _ = try await client.saveTemplate(template)
      let preview = try await client.render(
        template: "shelf", sku: "KIT-1", for: .printer("sim:zebra"))
      #expect(
        preview.mediaType == "image/png" && preview.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
      #expect(preview.width == 406)

      let zpl = Array("^XA^FDkit^FS^XZ".utf8)
      let job = try await client.submit(printer: "sim:zebra", .native(zpl), copies: 2)
      let done = try await client.wait(job: job.id)
      #expect(done.state == .completed && done.printed == 2)
      #expect(
        d.simOutput("zebra", job: job.id, ext: "zpl") == zpl + zpl, "the bytes the printer got")
      let listed = try await client.jobs(JobQuery(printer: "sim:zebra", states: [.completed]))
      #expect(listed.jobs.map(\.id) == [job.id])

      try await client.deleteProduct("KIT-1")
      #expect(try await client.activeAlerts().isEmpty)
    }
  }

  @Test func everyErrorCode_isItsTypedCase() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      await #expect(throws: LabelError.printerNotFound(printer: "sim:nope")) {
        _ = try await client.printer("sim:nope")
      }
      await #expect(throws: LabelError.jobNotFound(job: 99)) { _ = try await client.job(99) }
      await #expect(throws: LabelError.notFound(entity: "product", key: "NOPE")) {
        _ = try await client.product("NOPE")
      }
      await #expect(throws: LabelError.methodNotFound(method: "printers.delete")) {
        try await client.call("printers.delete")
      }
      do {
        _ = try await client.saveProduct(
          ProductInput(sku: "X", name: "X", barcode: "4006381333932"))
        Issue.record("a wrong check digit was saved")
      } catch {
        guard let error = error as? LabelError,
          case .invalidParams(let field, let reason, _) = error
        else {
          Issue.record("\(error)")
          return
        }
        #expect(field == "product.barcode" && reason.contains("check digit"))
      }
      _ = try await client.saveProduct(ProductInput(sku: "C", name: "one"))
      _ = try await client.saveProduct(ProductInput(sku: "C", name: "two"))
      do {
        _ = try await client.saveProduct(ProductInput(sku: "C", name: "stale"), expectedVersion: 1)
        Issue.record("a stale save was kept")
      } catch {
        guard let error = error as? LabelError, case .saveFailed(let failure) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(failure.reason == .conflict)
        #expect(failure.expectedVersion == 1 && failure.storedVersion == 2)
        #expect(failure.alert.id == "saveError:product:C" && failure.alert.seq > 0)
      }
      #expect(try await client.product("C").name == "two", "nothing of the stale save was kept")
    }
  }

  /// labeld restarts between two calls: the next call opens a new connection by itself.
  @Test func aCallAfterLabeldRestarted_reconnects() async throws {
    try await onKitExecutor {
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      var d = try DaemonProcess(DaemonProcess.defaultArguments, directory: home)
      let client = LabeldClient(socketPath: d.socketPath)
      _ = try await client.saveProduct(ProductInput(sku: "R", name: "before"))
      d.kill9()
      d = try DaemonProcess(DaemonProcess.defaultArguments, directory: home)
      defer { d.stop() }
      #expect(try await client.product("R").name == "before")
    }
  }

  @Test func noDaemon_isUnreachable_sayingItIsNotRunning() async throws {
    await onKitExecutor {
      let dir = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: dir) }
      let path = dir.appendingPathComponent("none.sock").path
      do {
        _ = try await LabeldClient(socketPath: path).hello()
        Issue.record("a call without a daemon succeeded")
      } catch {
        guard let error = error as? LabelError, case .unreachable(let u) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(u.cause == .notRunning)
        #expect(u.description.contains("labeld is not running"))
      }
    }
  }
}
