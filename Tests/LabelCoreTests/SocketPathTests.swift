import LabelCore
import Testing

/// Where the daemon listens and clients look: the protocol's order, and the clients'
/// fallback to the system service's socket.
@Suite struct SocketPathTests {
  @Test func resolve_followsTheProtocolsOrder() {
    #expect(
      SocketPath.resolve(explicit: "/x.sock", environment: ["LABELD_SOCKET": "/e"], uid: 7)
        == "/x.sock")
    #expect(SocketPath.resolve(explicit: nil, environment: ["LABELD_SOCKET": "/e"], uid: 7) == "/e")
    #expect(
      SocketPath.resolve(explicit: nil, environment: ["RUNTIME_DIRECTORY": "/run/a:/run/b"], uid: 7)
        == "/run/a/labeld.sock")
    #expect(
      SocketPath.resolve(explicit: nil, environment: [:], uid: 0) == "/run/labeld/labeld.sock")
    #expect(
      SocketPath.resolve(explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/7"], uid: 7)
        == "/run/user/7/labeld.sock")
    #expect(
      SocketPath.resolve(explicit: nil, environment: [:], uid: 7) == "/tmp/labeld-7/labeld.sock")
  }

  @Test func clients_fallBackToTheSystemService_unlessAPathWasNamed() {
    #expect(
      SocketPath.clientCandidates(
        explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/7"], uid: 7)
        == ["/run/user/7/labeld.sock", "/run/labeld/labeld.sock"])
    #expect(
      SocketPath.clientCandidates(explicit: nil, environment: [:], uid: 0) == [
        "/run/labeld/labeld.sock"
      ])
    #expect(
      SocketPath.clientCandidates(explicit: "/x.sock", environment: [:], uid: 7) == ["/x.sock"])
    #expect(
      SocketPath.clientCandidates(explicit: nil, environment: ["LABELD_SOCKET": "/e"], uid: 7) == [
        "/e"
      ])
    #expect(
      SocketPath.clientCandidates(
        explicit: nil, environment: ["RUNTIME_DIRECTORY": "/run/labeld"], uid: 7)
        == ["/run/labeld/labeld.sock"])
  }
}
