// Printer faults in words for shop staff: one row for every Reason of docs/protocol.md
// ("Reason"). The page shows these, never the protocol's codes; a code labeld adds later
// and this table does not know yet is shown as it came, rather than hidden.
export const REASONS = Object.freeze({
  offline: "Offline",
  disconnected: "Disconnected",
  notFound: "Not found",
  permissionDenied: "Not allowed to open the printer",
  busy: "In use by another program",
  mediaEmpty: "Out of labels",
  mediaJam: "Labels jammed",
  mediaMismatch: "Wrong labels loaded",
  coverOpen: "Cover open",
  ribbonEmpty: "Out of ribbon",
  cutterError: "Cutter fault",
  headError: "Print head fault",
  paused: "Paused",
  jobRejected: "Refused the job",
  jobAborted: "Stopped the job",
  communication: "Not answering properly",
  unknown: "Unknown fault",
});

// The words for `code`, or the code itself when it is not in the table.
export function reasonText(code) {
  return Object.hasOwn(REASONS, code) ? REASONS[code] : String(code);
}
