// The status page: printers, queue and alerts, live over one WebSocket (no polling).
import { Labeld } from "/v1/client.js";
import { reasonText } from "/reasons.js";

const $ = (id) => document.getElementById(id);
const printers = new Map();
const jobs = new Map();
const alerts = new Map();
let labeld = null;
let lastSeq = null;
let retry = 1000;
// Whether this token ever signed in: a socket that fails afterwards is labeld away (a
// restart), retried; one that fails first is a token refused.
let everConnected = false;
// Handshakes refused in a row while labeld answers (see "close").
let refusals = 0;

// A link /#token=… signs in once: the token moves to this tab's session and leaves the
// address bar (and the history).
const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromLink) {
  sessionStorage.setItem("labeld-token", fromLink);
  history.replaceState(null, "", location.pathname + location.search);
}

function text(value) {
  return value === undefined || value === null ? "" : String(value);
}

// A cell is a value, or `{ text, title }` for one that needs a word of explanation.
function row(cells, className) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    if (cell !== null && typeof cell === "object") {
      td.textContent = cell.text;
      td.title = cell.title;
    } else {
      td.textContent = text(cell);
    }
    tr.appendChild(td);
  }
  if (className) tr.children[1].className = className;
  return tr;
}

function render() {
  const p = $("printers");
  p.replaceChildren(
    ...[...printers.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((printer) =>
        row(
          [
            printer.name || printer.id,
            printer.state,
            (printer.reasons || []).map(reasonText).join(", ") || "none",
            printer.media ? `${printer.media.widthMM} mm ${printer.media.kind || ""}` : "",
            labelsLeft(printer),
          ],
          `state-${printer.state}`,
        ),
      ),
  );
  const j = $("jobs");
  j.replaceChildren(
    ...[...jobs.values()]
      .filter((job) => job.state === "pending" || job.state === "processing" || job.state === "held")
      .sort((a, b) => a.id - b.id)
      .map((job) => row([job.id, job.printer, job.state, `${job.printed} of ${job.copies}`])),
  );
  const a = $("alerts");
  const active = [...alerts.values()].filter((alert) => alert.state === "active");
  if (active.length === 0) {
    const li = document.createElement("li");
    li.textContent = "No alerts";
    a.replaceChildren(li);
    return;
  }
  a.replaceChildren(
    ...active.map((alert) => {
      const li = document.createElement("li");
      li.className = alert.kind === "saveError" ? "alert save" : "alert";
      const message = document.createElement("span");
      message.textContent = alert.message;
      const dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.textContent = "Dismiss";
      dismiss.setAttribute("aria-label", `Dismiss: ${alert.message}`);
      dismiss.addEventListener("click", async () => {
        try {
          await labeld.call("alerts.dismiss", { id: alert.id });
        } catch (error) {
          status(`Could not dismiss: ${error.message}`);
        }
      });
      li.append(message, dismiss);
      return li;
    }),
  );
}

// Only some printers count the labels on their roll (a DYMO LabelWriter 550); for the
// others the cell says so rather than stay empty.
function labelsLeft(printer) {
  if (typeof printer.labelsRemaining === "number") return printer.labelsRemaining;
  return { text: "—", title: "This printer does not report how many labels are left" };
}

function status(message) {
  $("status").textContent = message;
}

function showSignIn(message) {
  status("Not signed in");
  $("board").hidden = true;
  $("signout").hidden = true;
  $("signin").hidden = false;
  $("signin-error").textContent = message || "";
  $("token").focus();
}

// Whether labeld's web endpoint answers plain HTTP (the page's own stylesheet, no token).
async function labeldAnswers() {
  try {
    return (await fetch("/style.css", { method: "HEAD", cache: "no-store" })).ok;
  } catch {
    return false;
  }
}

async function start() {
  const token = sessionStorage.getItem("labeld-token");
  if (!token) {
    showSignIn();
    return;
  }
  labeld = new Labeld(token);
  labeld.addEventListener("printer", (e) => {
    printers.set(e.detail.id, e.detail);
    render();
  });
  labeld.addEventListener("job", (e) => {
    jobs.set(e.detail.id, e.detail);
    render();
  });
  labeld.addEventListener("alert", (e) => {
    alerts.set(e.detail.id, e.detail);
    if (typeof e.detail.seq === "number") lastSeq = e.detail.seq;
    render();
  });
  labeld.addEventListener("overflow", () => labeld.close());
  labeld.addEventListener("close", async (e) => {
    // Refused at the handshake: the first time, a wrong token. Later, a token revoked
    // since, when labeld answers HTTP and refuses twice in a row (once may be labeld
    // stopping, between closing its sockets and its listener; not answering, restarting).
    if (!e.detail.signedIn && (!everConnected || ((await labeldAnswers()) && ++refusals >= 2))) {
      sessionStorage.removeItem("labeld-token");
      const revoked = everConnected;
      everConnected = false;
      refusals = 0;
      lastSeq = null;
      showSignIn(
        revoked ? "labeld no longer accepts this token." : "labeld did not accept that token.",
      );
      return;
    }
    status("Connection lost; reconnecting…");
    setTimeout(start, retry);
    retry = Math.min(retry * 2, 5000);
  });
  try {
    await labeld.connect();
  } catch {
    return; // "close" decides what happens next
  }
  retry = 1000;
  refusals = 0;
  everConnected = true;
  $("signin").hidden = true;
  $("board").hidden = false;
  $("signout").hidden = false;
  const subscription = { topics: ["alerts", "jobs", "printers"] };
  if (lastSeq !== null) subscription.since = lastSeq;
  const subscribed = await labeld.call("subscribe", subscription);
  if (lastSeq === null) lastSeq = subscribed.seq;
  const [list, active, queue, templates] = await Promise.all([
    labeld.call("printers.list"),
    labeld.call("alerts.active"),
    labeld.call("jobs.list", { states: ["pending", "processing", "held"], limit: 200 }),
    labeld.call("templates.list", { limit: 200 }),
  ]);
  printers.clear();
  for (const printer of list.printers) printers.set(printer.id, printer);
  alerts.clear();
  for (const alert of active.alerts) alerts.set(alert.id, alert);
  jobs.clear();
  for (const job of queue.jobs) jobs.set(job.id, job);
  const select = $("preview-template");
  select.replaceChildren(
    ...templates.templates.map((t) => {
      const option = document.createElement("option");
      option.value = option.textContent = t.name;
      return option;
    }),
  );
  status("Live");
  render();
}

$("signin").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem("labeld-token", $("token").value.trim());
  $("token").value = "";
  lastSeq = null;
  everConnected = false;
  start();
});

$("signout").addEventListener("click", () => {
  sessionStorage.removeItem("labeld-token");
  lastSeq = null;
  if (labeld) {
    const closing = labeld;
    labeld = null;
    closing.close();
  }
  location.reload();
});

$("preview-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("preview-error").textContent = "";
  try {
    const result = await labeld.call("labels.render", {
      template: $("preview-template").value,
      sku: $("preview-sku").value.trim(),
      format: "png",
      language: "zpl",
    });
    const img = $("preview");
    img.src = `data:${result.mediaType};base64,${result.data}`;
    img.alt = `Preview of ${$("preview-template").value} for ${$("preview-sku").value}`;
    img.hidden = false;
  } catch (error) {
    $("preview-error").textContent = error.message;
  }
});

start();
