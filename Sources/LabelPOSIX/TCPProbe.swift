/// Whether something listens at a network address: a TCP connect that is closed at once.
/// Used to notice that an unreachable network printer is back. Blocking (at most
/// `timeoutMS` per address): call it off the cooperative pool.
public enum TCPProbe {
  public static func canConnect(host: String, port: Int, timeoutMS: Int32 = 1000) -> Bool {
    (try? TCPConnection.connect(host: host, port: port, timeoutMS: timeoutMS)) != nil
  }
}
