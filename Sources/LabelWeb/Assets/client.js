// labeld's protocol v1 over a WebSocket, for browser apps (served as /v1/client.js):
//
//   import { Labeld } from "/v1/client.js";
//   const labeld = new Labeld(token);            // this page's own labeld
//   labeld.addEventListener("alert", (e) => show(e.detail));
//   await labeld.connect();
//   const { printers } = await labeld.call("printers.list");
//
// One JSON-RPC message per text frame; the token goes in a `bearer.` subprotocol (a
// browser cannot set headers on a WebSocket). Notifications arrive as events named after
// the method ("alert", "job", "printer", "overflow"); "close" says the socket ended, with
// `detail.code` (1008: refused) and `detail.signedIn` (false: the token was refused).
export class Labeld extends EventTarget {
  constructor(token, url) {
    super();
    this.token = token;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = url || `${scheme}//${location.host}/v1/ws`;
    this.socket = null;
    this.pending = new Map();
    this.nextId = 1;
  }

  // Opens the socket; resolves once it is open, rejects if it cannot be.
  connect() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, ["labeld.v1", `bearer.${this.token}`]);
      this.socket = socket;
      let opened = false;
      socket.onopen = () => {
        opened = true;
        resolve(this);
      };
      socket.onmessage = (event) => this.received(event.data);
      socket.onclose = (event) => {
        for (const { reject: fail } of this.pending.values()) {
          fail(new Error("the connection to labeld closed"));
        }
        this.pending.clear();
        if (!opened) reject(new Error("labeld refused the connection (is the token right?)"));
        this.dispatchEvent(
          new CustomEvent("close", { detail: { code: event.code, signedIn: opened } }),
        );
      };
    });
  }

  close() {
    if (this.socket) this.socket.close(1000);
  }

  // Calls `method`; resolves with its result, rejects with an Error carrying `code` and
  // `data` for a protocol error.
  call(method, params) {
    const id = this.nextId++;
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected to labeld"));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify(message));
    });
  }

  received(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.id !== undefined && message.id !== null && this.pending.has(message.id)) {
      const { resolve, reject } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) {
        const error = new Error(message.error.message);
        error.code = message.error.code;
        error.data = message.error.data;
        reject(error);
      } else {
        resolve(message.result);
      }
    } else if (message.method) {
      this.dispatchEvent(new CustomEvent(message.method, { detail: message.params }));
    }
  }
}
