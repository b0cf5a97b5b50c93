#!/usr/bin/python3
"""Emulated USB label printers for labeld's tests, on umockdev.

Runs COMMAND (the built labeld) as a child inside a umockdev testbed holding emulated
printers. The real libusb in the child enumerates, opens, claims and talks to them through
the usbdevfs ioctls this process answers.

    umockdev-wrapper /usr/bin/python3 usbprinter.py --dir DIR \
        --printer ql820:SERIAL [--printer zebra:SERIAL ...] -- COMMAND...

Printers:
  ql820   Brother QL-820NWB (04f9:209d): parses the raster stream, rebuilds each page as
          DIR/SERIAL/page-N.pbm (un-mirrored, the printable area of the loaded roll) and
          keeps each job's bytes as DIR/SERIAL/job-N.ql; answers ESC i S with the 32-byte
          status, reports phase changes and "printing completed" per page, and an error
          status when a page cannot print. Two-colour jobs (ESC i K bit 0, w lines) print
          their red plane as DIR/SERIAL/page-N-red.pbm; roll 62red takes only those.
  zebra   Zebra ZD420 (0a5f:0120): answers ~HS and ~HQES; each ^XA..^XZ label is
          DIR/SERIAL/label-N.zpl once printed (labels wait in its buffer while it has a fault).
  epl2    Zebra LP 2844 (0a5f:0009): parses EPL2 (N, q, Q, GW, P p1[,p2]), answers ^ee with
          its error code; each label is DIR/SERIAL/label-N.pbm once printed (labels wait
          while an error is set) and its commands DIR/SERIAL/label-N.txt.
  tspl    TSC TX200 (1203:0230): parses TSPL (SIZE, GAP, CLS, BITMAP in its three modes,
          PRINT m,n), answers <ESC>!? with its status byte; each label PRINT makes is
          DIR/SERIAL/label-N.pbm once printed (labels wait while a fault bit is set), and
          the commands of each are DIR/SERIAL/label-N.txt.
  dymo450 DYMO LabelWriter 450 (0922:0020): parses SYN and ETB lines, dot tabs, skips and
          form feeds, answers ESC A with its status byte; each label (ended by ESC E or
          ESC G) is DIR/SERIAL/label-N.pbm, 672 dots wide, once printed (labels wait while
          the byte says not ready, no paper, jam or error), its commands label-N.txt.
  dymo550 DYMO LabelWriter 550 (0922:0028): parses ESC s / ESC n / ESC D blocks, answers
          ESC A n with its 32 status bytes (bay, head, SKU 30252, labels remaining, counted
          down per label); each ESC D block is DIR/SERIAL/label-N.pbm (672 wide) once
          printed (labels wait while the bay is not ready or the head is too hot).
  ptouch  Brother PT-P700 (04f9:2061), P-touch raster (ptouch_raster.py): rebuilds each
          page as DIR/SERIAL/page-N.pbm in head orientation (column x = pin left margin + x,
          row y = raster line y; exactly the print area of the loaded tape, 12 mm: 70 pins
          from pin 29) and keeps each job's bytes as DIR/SERIAL/job-N.pt; answers ESC i S
          with the 32-byte status (model 67, the tape's width, type and colours), reports
          phase changes and "printing completed" per page (unless ESC i ! 01), and an error
          status when a page cannot print: a fault, or an ESC i z for other media ("replace
          media", error information 2 bit 0), after which the rest of that job is dropped.
  dymolm  DYMO LabelManager PnP (0922:1002, its printer mode): SYN lines after ESC B dot
          tab / ESC D bytes per line (dymo_lm.py) on a 64-dot head; a label ends at ESC E or
          when nothing came for label-gap seconds (0.5) and is DIR/SERIAL/label-N.pbm in head
          orientation, the tape's dots only (12 mm: 64, 9 mm: 48 from dot 8, 6 mm: 32 from
          dot 16), its commands label-N.txt; labels wait while there is no cassette, the head
          is hot or the error bit is set. ESC A answers 8 bytes (40 cassette, 20 busy while
          a label is under way, 08 overheat, 04 error; 00 with no cassette).

Control: write lines to the FIFO DIR/control, each `SERIAL COMMAND [ARG]`:
  cover open|closed        media none|62|29x90|...   silent on|off     claimed on|off
  unplug                   plug                       print-delay SECONDS
  fail-next-page cover|media   (the next page raises that fault instead of printing)
  unplug-after BYTES       (unplugs mid-transfer once BYTES more bytes have arrived)
  errors HEX               (Zebra: the ~HQES error flags)
  error NN                 (EPL2: the ^ee code, 00 none: 07 paper out, 11 head open, ...)
  status HEX               (TSPL: the <ESC>!? byte: 01 head open, 02 jam, 04 paper out,
                            08 ribbon out, 10 paused, 20 printing, 40 cover open;
                            DYMO: the ESC A byte: 03 ready, 20 no paper, 40 jam, 80 error)
  bay N, head N            (DYMO 550: the bay code, 8 ok, 1 open, 2 no media, 5 empty, 9 jam,
                            10 not genuine; the head, 1 overheated)
  remaining N              (DYMO 550: the labels left on the roll)
  garbage on|off           (Zebra: answers ~HQES with a block that is not a status)
  tape none|3.5|6|9|12|18|24 [non-laminated]   (ptouch: the cassette, laminated by default)
  cover open|closed, tape-end [on|off], cutter jam|ok, battery weak|ok, overheat on|off,
  incompatible [on|off]    (ptouch: error information 2 bit 4, 1 bit 1, 1 bit 2, 1 bit 3,
                            2 bit 5; an incompatible cassette has media type FF; a new
                            tape clears tape-end and incompatible)
  fail-next-page cover|tape-end|cutter|overheat|none   (ptouch, as ql820)
  tape none|6|9|12, overheat on|off, error on|off   (dymolm: status bits 40, 08, 04)
  size-code on|off         (dymolm: status byte 1 is DYMO's tape size code, 0 by default as a
                            real PnP answered)
  label-gap SECONDS        (dymolm: how long a pause ends a label)
Events (printed pages, faults, plug changes) are appended to DIR/events.log; ptouch adds
`SERIAL error page not printed (REASON)` and `SERIAL page N: NOTE` (a raster count that is
not the lines sent, ink outside the print area, no ESC i a 01, unknown commands), dymolm
`SERIAL label N: NOTE` (ink off the tape or past the head).

usbdevfs facts (x86_64) follow the measured recipe: SUBMITURB 0x8038550A with a 56-byte
urb (type 0, endpoint 1, status int32 at 4, buffer pointer at 16, buffer_length 24,
actual_length 28); REAPURBNDELAY 0x4008550D; DISCARDURB 0x550B. On unplug, pending urbs
complete with -ESHUTDOWN before later calls return ENODEV (ENODEV from REAP hangs libusb).
"""

import argparse
import errno
import os
import shutil
import signal
import struct
import sys
import threading
import time

import dymo_lm
import ptouch_raster
import zebra_status
from ptouch_raster import packbits_decode

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import GLib, UMockdev  # noqa: E402

SUBMITURB = 0x8038550A
REAPURB = 0x4008550C
REAPURBNDELAY = 0x4008550D
DISCARDURB = 0x550B
GET_CAPABILITIES = 0x8004551A
CLAIMINTERFACE = 0x8004550F
RELEASEINTERFACE = 0x80045510
GETDRIVER = 0x41045508
CLEAR_HALT = 0x80045515
RESET = 0x5514
SETINTERFACE = 0x80085504
SETCONFIGURATION = 0x80045505
USBDEVFS_IOCTL = 0xC0105512

URB_CONTROL, URB_BULK = 2, 3

# Brother QL rolls: name -> (kind 0x0A continuous / 0x0B die-cut, width mm, length mm,
# printable width dots, left margin dots, printable length dots). brother_ql's label table.
ROLLS = {
    "62": (0x0A, 62, 0, 696, 12, 0),
    # DK-22251 red/black: reports as 62 mm continuous; takes two-colour jobs only.
    "62red": (0x0A, 62, 0, 696, 12, 0),
    "29": (0x0A, 29, 0, 306, 6, 0),
    "62x29": (0x0B, 62, 29, 696, 12, 271),
    "29x90": (0x0B, 29, 90, 306, 6, 991),
    "62x100": (0x0B, 62, 100, 696, 12, 1109),
}

LOCK = threading.RLock()
EVENTS = None


def event(line):
    with LOCK:
        with open(EVENTS, "a") as f:
            f.write("%.3f %s\n" % (time.time(), line))


def hexs(b):
    return "".join("%02X" % x for x in b)


class Printer:
    """One emulated device: descriptors, the urb plumbing shared by both kinds."""

    def __init__(self, bed, serial, index, out_dir):
        self.bed = bed
        self.serial = serial
        self.index = index
        self.bus, self.dev = 1, 1 + index
        self.syspath = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-%d" % index
        self.devnode = "/dev/bus/usb/%03d/%03d" % (self.bus, self.dev)
        self.dir = os.path.join(out_dir, serial)
        os.makedirs(self.dir, exist_ok=True)
        self.plugged = False
        self.pending_in = []  # IN urbs waiting for data
        self.pending_out = []  # OUT urbs never accepted (an unplug mid-transfer)
        self.plugs = 0
        self.done = []  # urbs ready to be reaped
        self.outbox = bytearray()  # device -> host bytes not yet read
        self.silent = False
        self.claimed_elsewhere = False
        self.unplug_after = None
        self.handler = None

    # descriptors -----------------------------------------------------------------
    def descriptors(self):
        dev = struct.pack(
            "<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0, 0, 0, 64, self.vid, self.pid, 0x0100, 1, 2, 3, 1
        )
        intf = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 7, 1, 2, 0)
        ep_out = struct.pack("<BBBBHB", 7, 5, 0x02, 0x02, 512, 0)
        ep_in = struct.pack("<BBBBHB", 7, 5, 0x81, 0x02, 512, 0)
        total = 9 + len(intf) + len(ep_out) + len(ep_in)
        conf = struct.pack("<BBHBBBBB", 9, 2, total, 1, 1, 0, 0xC0, 1)
        return dev + conf + intf + ep_out + ep_in

    def description(self):
        d = self.descriptors()
        lines = [
            "P: " + self.syspath[len("/sys") :],
            "N: bus/usb/%03d/%03d=%s" % (self.bus, self.dev, hexs(d)),
            "E: SUBSYSTEM=usb",
            "E: DEVTYPE=usb_device",
            "E: DEVNAME=" + self.devnode,
            "E: BUSNUM=%03d" % self.bus,
            "E: DEVNUM=%03d" % self.dev,
            "E: MAJOR=189",
            "E: MINOR=%d" % (self.dev - 1),
            "E: PRODUCT=%x/%x/100" % (self.vid, self.pid),
            "E: TYPE=0/0/0",
            "E: DRIVER=usb",
            "E: ID_VENDOR_ID=%04x" % self.vid,
            "E: ID_MODEL_ID=%04x" % self.pid,
            "E: ID_SERIAL_SHORT=" + self.serial,
            "A: busnum=%d" % self.bus,
            "A: devnum=%d" % self.dev,
            "A: devpath=%d" % self.index,
            "A: dev=189:%d" % (self.dev - 1),
            "A: speed=480",
            "A: idVendor=%04x" % self.vid,
            "A: idProduct=%04x" % self.pid,
            "A: bConfigurationValue=1",
            "A: bNumConfigurations=1",
            "A: bNumInterfaces= 1",
            "A: manufacturer=" + self.manufacturer,
            "A: product=" + self.product,
            "A: serial=" + self.serial,
            "H: descriptors=" + hexs(d),
        ]
        return "\n".join(lines) + "\n"

    def strings(self):
        return {1: self.manufacturer, 2: self.product, 3: self.serial}

    # plugging ----------------------------------------------------------------------
    def plug(self):
        with LOCK:
            if self.plugged:
                return
            # A replugged device gets a new address, as on a real bus.
            self.plugs += 1
            self.dev = 1 + self.index + 10 * (self.plugs - 1)
            self.devnode = "/dev/bus/usb/%03d/%03d" % (self.bus, self.dev)
            self.reset_state()
            # The ioctl handler listens before the device appears: adding it sends the
            # "add" uevent, and a labeld that opens the node on that uevent before the
            # handler's socket exists gets "failed to connect to ioctl socket" from the
            # preload (a red USB test, once, in a loaded full run).
            self.handler = UMockdev.IoctlBase()
            self.handler.connect("handle-ioctl", self.handle_ioctl)
            self.bed.attach_ioctl(self.devnode, self.handler)
            self.bed.add_from_string(self.description())
            self.plugged = True
        event("%s plugged" % self.serial)

    def unplug(self):
        with LOCK:
            if not self.plugged:
                return
            self.plugged = False
            # Pending urbs end with -ESHUTDOWN and stay reapable: libusb then sees
            # NO_DEVICE instead of hanging on an ENODEV reap.
            for urb in [u[0] for u in self.pending_in] + self.pending_out:
                self.finish(urb, -errno.ESHUTDOWN, 0)
            self.pending_in = []
            self.pending_out = []
        # umockdev sends no remove uevent itself.
        self.bed.uevent(self.syspath, "remove")
        self.bed.remove_device(self.syspath)
        try:
            self.bed.detach_ioctl(self.devnode)
        except Exception:
            pass
        event("%s unplugged" % self.serial)

    def reset_state(self):
        self.pending_in = []
        self.pending_out = []
        self.done = []
        self.outbox = bytearray()

    # urbs ----------------------------------------------------------------------------
    def finish(self, urb, status, actual):
        urb.update(4, struct.pack("<i", status))
        urb.update(28, struct.pack("<i", actual))
        self.done.append(urb)

    def send(self, data):
        """Bytes from the device to the host: handed to a waiting IN urb or kept."""
        with LOCK:
            if self.silent or not self.plugged:
                return
            self.outbox += data
            self.feed_in()

    def feed_in(self):
        while self.pending_in and self.outbox:
            urb, buf, n = self.pending_in.pop(0)
            chunk = bytes(self.outbox[:n])
            del self.outbox[: len(chunk)]
            buf.update(0, chunk)
            self.finish(urb, 0, len(chunk))

    def handle_ioctl(self, handler, client):
        req = client.get_request()
        arg = client.get_arg()
        with LOCK:
            if not self.plugged:
                if req == REAPURBNDELAY and self.done:
                    urb = self.done.pop(0)
                    arg.resolve(0, 8).set_ptr(0, urb)
                    client.complete(0, 0)
                    return True
                client.complete(-1, errno.ENODEV)
                return True
            if req == SUBMITURB:
                urb = arg.resolve(0, 56)
                raw = bytes(urb.retrieve())
                kind, ep = raw[0], raw[1]
                (length,) = struct.unpack_from("<i", raw, 24)
                buf = urb.resolve(16, length) if length > 0 else None
                if kind == URB_CONTROL:
                    self.control(urb, buf, length)
                elif kind == URB_BULK and ep & 0x80:
                    self.pending_in.append((urb, buf, length))
                    self.feed_in()
                elif kind == URB_BULK:
                    data = bytes(buf.retrieve()) if buf else b""
                    if self.unplug_after is not None:
                        self.unplug_after -= len(data)
                        if self.unplug_after <= 0:
                            self.unplug_after = None
                            # Accept nothing of this transfer; unplug from the main loop.
                            self.pending_out.append(urb)
                            GLib.idle_add(lambda: self.unplug() and False)
                            client.complete(0, 0)
                            return True
                    self.finish(urb, 0, len(data))
                    self.received(data)
                else:
                    client.complete(-1, errno.EINVAL)
                    return True
                client.complete(0, 0)
            elif req == REAPURBNDELAY or req == REAPURB:
                if self.done:
                    urb = self.done.pop(0)
                    arg.resolve(0, 8).set_ptr(0, urb)
                    client.complete(0, 0)
                else:
                    client.complete(-1, errno.EAGAIN)
            elif req == DISCARDURB:
                addr = arg.resolve(0, 56).client_addr
                for i, (urb, buf, n) in enumerate(self.pending_in):
                    if urb.client_addr == addr:
                        del self.pending_in[i]
                        self.finish(urb, -errno.ENOENT, 0)
                        client.complete(0, 0)
                        break
                else:
                    client.complete(-1, errno.EINVAL)
            elif req == GET_CAPABILITIES:
                arg.resolve(0, 4).update(0, struct.pack("<I", 0))
                client.complete(0, 0)
            elif req == CLAIMINTERFACE:
                if self.claimed_elsewhere:
                    client.complete(-1, errno.EBUSY)
                else:
                    client.complete(0, 0)
            elif req == GETDRIVER:
                client.complete(-1, errno.ENODATA)
            elif req in (RELEASEINTERFACE, CLEAR_HALT, RESET, SETINTERFACE, SETCONFIGURATION):
                client.complete(0, 0)
            else:
                client.complete(-1, errno.ENOTTY)
        return True

    def control(self, urb, buf, length):
        setup = bytes(buf.retrieve())[:8]
        rtype, request, value, index, wlength = struct.unpack("<BBHHH", setup)
        reply = None
        if rtype == 0xA1 and request == 0:  # printer class GET_DEVICE_ID
            text = self.device_id.encode()
            reply = struct.pack(">H", len(text) + 2) + text
        elif rtype == 0xA1 and request == 1:  # GET_PORT_STATUS: selected, no error
            reply = bytes([0x18])
        elif rtype == 0x80 and request == 6 and value >> 8 == 3:  # string descriptor
            i = value & 0xFF
            if i == 0:
                reply = bytes([4, 3, 0x09, 0x04])
            elif i in self.strings():
                s = self.strings()[i].encode("utf-16-le")
                reply = bytes([2 + len(s), 3]) + s
        elif rtype == 0x80 and request == 6 and value >> 8 == 1:  # device descriptor
            reply = self.descriptors()[:18]
        elif rtype == 0x80 and request == 6 and value >> 8 == 2:
            reply = self.descriptors()[18:]
        if reply is None:
            self.finish(urb, -errno.EPIPE, 0)  # stall
            return
        reply = reply[:wlength]
        buf.update(8, reply)
        self.finish(urb, 0, len(reply))

    def faulted(self):
        """Whether a fault the printer reports holds its labels (each kind says)."""
        return False

    def flush(self):
        """Prints the labels waiting, in order, unless a fault holds them."""
        if self.faulted():
            return
        while self.waiting:
            label = self.waiting.pop(0)
            self.labels += 1
            self.print_label(label)

    def print_label(self, label):
        """Writes a raster label (width, height, rows, commands) as label-N.pbm and .txt."""
        w, h, rows, commands = label
        write_label(self, w, h, rows, commands)

    def received(self, data):
        raise NotImplementedError


class BrotherQL(Printer):
    vid, pid = 0x04F9, 0x209D
    manufacturer, product = "Brother", "QL-820NWB"
    device_id = "MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;CLS:PRINTER;CID:Brother LabelPrinter TypeA1;"
    model_code = 0x41
    bytes_per_line = 90

    def __init__(self, *a):
        super().__init__(*a)
        self.roll = "62"
        self.cover_open = False
        self.fail_next = None
        self.print_delay = 0.0
        self.pages = 0
        self.jobs = 0
        self.reset_parser()

    def reset_state(self):
        super().reset_state()
        self.reset_parser()

    def reset_parser(self):
        self.buf = bytearray()
        self.job = bytearray()
        self.nuls = 0
        self.page = None
        self.compressed = False

    def errors(self):
        e1 = e2 = 0
        if self.roll is None:
            e1 |= 0x01
        if self.cover_open:
            e2 |= 0x10
        return e1, e2

    def status(self, kind, phase=0, extra=(0, 0)):
        b = bytearray(32)
        b[0:3] = b"\x80\x20\x42"
        b[3] = 0x34
        b[4] = self.model_code
        b[5] = 0x30
        e1, e2 = self.errors()
        b[8] = e1 | extra[0]
        b[9] = e2 | extra[1]
        if self.roll:
            k, w, l = ROLLS[self.roll][:3]
            b[10], b[11], b[17] = w, k, l
        b[18] = kind
        b[19] = phase
        return bytes(b)

    def received(self, data):
        self.buf += data
        self.parse()

    def parse(self):
        b = self.buf
        i = 0
        n = len(b)
        while i < n:
            c = b[i]
            need = 1
            if c == 0x00:
                self.nuls += 1
                i += 1
                continue
            if c == 0x1B:
                if i + 1 >= n:
                    break
                if b[i + 1] == 0x40:  # ESC @
                    self.job = bytearray(b"\0" * self.nuls) + b"\x1b\x40"
                    self.nuls = 0
                    self.page = None
                    self.compressed = False
                    i += 2
                    continue
                if b[i + 1] != 0x69 or i + 2 >= n:
                    if b[i + 1] != 0x69:
                        i += 1  # resync
                        continue
                    break
                cmd = b[i + 2]
                arglen = {0x53: 0, 0x61: 1, 0x21: 1, 0x4D: 1, 0x41: 1, 0x4B: 1, 0x64: 2, 0x7A: 10}
                if cmd not in arglen:
                    i += 1
                    continue
                need = 3 + arglen[cmd]
                if i + need > n:
                    break
                args = bytes(b[i + 3 : i + need])
                if cmd == 0x53:
                    self.send(self.status(0x00))
                elif cmd == 0x7A:
                    (lines,) = struct.unpack("<I", args[4:8])
                    self.page = {
                        "kind": args[1], "width": args[2], "length": args[3],
                        "lines": lines, "rows": [], "red": [], "two": False,
                    }
                elif cmd == 0x4B and self.page is not None:
                    self.page["two"] = bool(args[0] & 0x01)
            elif c == 0x4D:  # M n
                need = 2
                if i + need > n:
                    break
                self.compressed = b[i + 1] == 2
            elif c == 0x67:  # g 00 n data
                if i + 3 > n:
                    break
                need = 3 + b[i + 2]
                if i + need > n:
                    break
                data = bytes(b[i + 3 : i + need])
                row = packbits_decode(data) if self.compressed else data
                if self.page is not None and row is not None:
                    self.page["rows"].append(row)
            elif c == 0x77:  # w PLANE n data: two-colour line, 01 black then 02 red
                if i + 3 > n:
                    break
                need = 3 + b[i + 2]
                if i + need > n:
                    break
                data = bytes(b[i + 3 : i + need])
                row = packbits_decode(data) if self.compressed else data
                if self.page is not None and row is not None:
                    self.page["rows" if b[i + 1] == 1 else "red"].append(row)
            elif c == 0x5A:  # Z
                if self.page is not None:
                    self.page["rows"].append(bytes(self.bytes_per_line))
            elif c in (0x0C, 0x1A):
                self.job += b[i : i + 1]
                i += 1
                self.print_page(last=(c == 0x1A))
                self.nuls = 0
                continue
            else:
                i += 1  # unknown byte: skip (a printer resyncs on the next invalidate)
                continue
            self.job += b[i : i + need]
            i += need
            self.nuls = 0
        del b[:i]

    def print_page(self, last):
        page = self.page
        self.page = None
        if page is None:
            return
        fault = None
        if self.fail_next:
            fault, self.fail_next = self.fail_next, None
            if fault == "cover":
                self.cover_open = True
            elif fault == "media":
                self.roll = None
            event("%s fault %s" % (self.serial, fault))
        e1, e2 = self.errors()
        roll = ROLLS.get(self.roll) if self.roll else None
        # A red/black roll takes two-colour jobs only, and a black roll none (Brother
        # reports "replace media", error information 2 bit 0).
        mismatch = roll is not None and (
            page["kind"] != roll[0] or page["width"] != roll[1] or page["length"] != roll[2]
            or page["two"] != (self.roll == "62red")
        )
        if e1 or e2 or mismatch or len(page["rows"]) != page["lines"]:
            extra = (0, 0x01) if mismatch else (0, 0)
            if len(page["rows"]) != page["lines"] and not (e1 or e2 or mismatch):
                extra = (0, 0x04)  # communication error: a page with the wrong line count
            self.send(self.status(0x02, 0, extra))
            event("%s error page not printed" % self.serial)
            return
        self.pages += 1
        number = self.pages
        self.write_pbm(number, page, roll)
        if last:
            self.jobs += 1
            with open(os.path.join(self.dir, "job-%d.ql" % self.jobs), "wb") as f:
                f.write(self.job)

        def done():
            time.sleep(self.print_delay)
            with LOCK:
                if not self.plugged:
                    return
                self.send(self.status(0x06, 0x01))
                self.send(self.status(0x01, 0x01))
                self.send(self.status(0x06, 0x00))
            event("%s printed page %d" % (self.serial, number))

        if self.print_delay > 0:
            threading.Thread(target=done, daemon=True).start()
        else:
            done()

    def write_pbm(self, number, page, roll):
        # Head dot x (from the line's first bit) holds bitmap dot printable - 1 - (x - margin).
        width, margin = roll[3], roll[4]
        rows = []
        for row in page["rows"]:
            bits = int.from_bytes(row, "big")
            total = len(row) * 8
            out = 0
            for x in range(width):
                head = margin + width - 1 - x
                if bits >> (total - 1 - head) & 1:
                    out |= 1 << (width - 1 - x)
            pad = (8 - width % 8) % 8
            rows.append((out << pad).to_bytes((width + pad) // 8, "big"))
        name = "page-%d%s.pbm" % (number, page.get("suffix", ""))
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(b"P4\n%d %d\n" % (width, len(rows)))
            f.write(b"".join(rows))
        if page["two"]:
            self.write_pbm(number, dict(page, rows=page["red"], two=False, suffix="-red"), roll)

    def command(self, words):
        w = words[0]
        if w == "cover":
            self.cover_open = words[1] == "open"
        elif w == "media":
            self.roll = None if words[1] == "none" else words[1]
        elif w == "fail-next-page":
            self.fail_next = words[1]
        elif w == "print-delay":
            self.print_delay = float(words[1])
        else:
            return False
        return True


class PTouch(Printer):
    """A Brother PT-P700 in printer mode (ptouch-print's table: 04f9:2061; 2064 is its
    P-Lite mass-storage mode, not emulated): the P-touch raster of ptouch_raster.py, a
    128-pin 180 dpi head, pages refused with an error status while a fault is set or when
    the job is for other media (after which the rest of that job is thrown away, as the
    printer waits for the host to start again)."""

    vid, pid = 0x04F9, 0x2061
    manufacturer, product = "Brother", "PT-P700"
    device_id = "MFG:Brother;CMD:PT-CBP;MDL:PT-P700;CLS:PRINTER;"

    def __init__(self, *a):
        super().__init__(*a)
        self.device = ptouch_raster.Device(ptouch_raster.PT_P700)
        self.fail_next = None
        self.print_delay = 0.0
        self.pages = 0
        self.jobs = 0
        self.stream = ptouch_raster.Stream()
        self.failed_job = None

    def reset_state(self):
        super().reset_state()
        self.stream = ptouch_raster.Stream()
        self.failed_job = None

    def received(self, data):
        for what, page in self.stream.feed(data):
            if what == "status":
                self.send(self.device.status(0x00, mode=self.stream.mode))
            else:
                self.print_page(page)

    def print_page(self, page):
        if page.job_number == self.failed_job:
            event("%s page discarded after an error" % self.serial)
            return
        if self.fail_next:
            fault, self.fail_next = self.fail_next, None
            self.device.fail(fault)
            event("%s fault %s" % (self.serial, fault))
        refused = self.device.refusal(page)
        if refused:
            e1, e2, reason = refused
            self.send(self.device.status(0x02, 0x00, (e1, e2), page.mode))
            self.failed_job = page.job_number
            event("%s error page not printed (%s)" % (self.serial, reason))
            return
        self.pages += 1
        number = self.pages
        pbm, outside = ptouch_raster.page_pbm(page.rows, self.device.width)
        ptouch_raster.write_file(os.path.join(self.dir, "page-%d.pbm" % number), pbm)
        notes = page.notes + (["%d dots inked outside the print area" % outside] if outside else [])
        for note in notes:
            event("%s page %d: %s" % (self.serial, number, note))
        if page.last and page.job is not None:
            self.jobs += 1
            ptouch_raster.write_file(os.path.join(self.dir, "job-%d.pt" % self.jobs), page.job)

        def done():
            time.sleep(self.print_delay)
            with LOCK:
                if not self.plugged:
                    return
                if page.notify:
                    self.send(self.device.status(0x06, 0x01, mode=page.mode))
                    self.send(self.device.status(0x01, 0x01, mode=page.mode))
                    self.send(self.device.status(0x06, 0x00, mode=page.mode))
            event("%s printed page %d" % (self.serial, number))

        if self.print_delay > 0:
            threading.Thread(target=done, daemon=True).start()
        else:
            done()

    def command(self, words):
        w = words[0]
        if w == "fail-next-page":
            self.fail_next = words[1]
        elif w == "print-delay":
            self.print_delay = float(words[1])
        else:
            return self.device.command(words)
        return True


class Zebra(Printer):
    vid, pid = 0x0A5F, 0x0120
    manufacturer, product = "Zebra Technologies", "ZTC ZD420-203dpi ZPL"
    device_id = "MFG:Zebra Technologies;CMD:ZPL;MDL:ZD420;CLS:PRINTER;DES:Zebra ZD420;"

    def __init__(self, *a):
        super().__init__(*a)
        self.error_flags = 0
        self.garbage = False
        self.labels = 0
        self.waiting = []
        self.text = bytearray()

    def reset_state(self):
        super().reset_state()
        self.text = bytearray()

    def received(self, data):
        self.text += data
        while True:
            t = bytes(self.text)
            hs = t.find(b"~HS")
            hq = t.find(b"~HQES")
            if hq >= 0 and (hs < 0 or hq <= hs):
                del self.text[hq : hq + 5]
                self.send(self.hqes())
                continue
            if hs >= 0:
                del self.text[hs : hs + 3]
                self.send(self.hs())
                continue
            end = t.find(b"^XZ")
            if end < 0:
                break
            start = t.find(b"^XA")
            label = t[start if start >= 0 else 0 : end + 3]
            del self.text[: end + 3]
            self.waiting.append(label)
        self.flush()

    def faulted(self):
        return self.error_flags != 0

    def print_label(self, label):
        with open(os.path.join(self.dir, "label-%d.zpl" % self.labels), "wb") as f:
            f.write(label)
        event("%s printed label %d" % (self.serial, self.labels))

    def hqes(self):
        if self.garbage:
            return b"\x02\x7f\x00\xffnot a status\x1b\x03\r\n"
        return zebra_status.hqes(self.error_flags)

    def hs(self):
        return zebra_status.hs(self.error_flags, len(self.waiting))

    def command(self, words):
        if words[0] == "errors":
            self.error_flags = int(words[1], 16)
            self.flush()
            return True
        if words[0] == "garbage":
            self.garbage = words[1] == "on"
            return True
        return False


def write_label(printer, w, h, rows, commands):
    """A printed label of a TSPL or EPL2 printer: DIR/SERIAL/label-N.pbm (P4, rows of 0/1
    dots, 1 black) and its commands as DIR/SERIAL/label-N.txt."""
    packed = bytearray()
    for r in rows:
        for i in range(0, w, 8):
            byte = 0
            for bit in range(8):
                if i + bit < w and r[i + bit]:
                    byte |= 0x80 >> bit
            packed.append(byte)
    base = os.path.join(printer.dir, "label-%d" % printer.labels)
    with open(base + ".pbm", "wb") as f:
        f.write(b"P4\n%d %d\n" % (w, h) + bytes(packed))
    with open(base + ".txt", "w") as f:
        f.write("\n".join(commands) + "\n")
    event("%s printed label %d" % (printer.serial, printer.labels))


class StatusByte:
    """A printer whose state the test sets as one status byte ("SERIAL status 41")."""

    def command(self, words):
        if words[0] == "status":
            self.status_byte = int(words[1], 16)
            self.flush()
            return True
        return False


class TSPL(StatusByte, Printer):
    """A TSPL printer, as the TSC TSPL/TSPL2 Programming Manual describes one: command lines
    end in LF (CR ignored); BITMAP x,y,width_bytes,height,mode, is followed by exactly
    width_bytes * height bytes in which a 0 bit is black; <ESC>!? is answered at once."""

    vid, pid = 0x1203, 0x0230
    manufacturer, product = "TSC", "TX200"
    device_id = "MFG:TSC;CMD:TSPL;MDL:TX200;CLS:PRINTER;DES:TSC TX200;"
    dpi = 203
    # Bits that stop printing (0x20, "printing", does not).
    FAULTS = 0xDF

    def __init__(self, *a):
        super().__init__(*a)
        self.status_byte = 0
        self.labels = 0
        self.waiting = []  # (width, height, rows, commands)
        self.buf = bytearray()
        self.size = (0, 0)
        self.canvas = None
        self.commands = []

    def reset_state(self):
        super().reset_state()
        self.buf = bytearray()

    def received(self, data):
        self.buf += data
        self.parse()
        self.flush()

    def dots(self, field):
        parts = field.split()
        value = float(parts[0])
        unit = parts[1] if len(parts) > 1 else ""
        mm = value if unit == "mm" else value * 25.4 / self.dpi if unit == "dot" else value * 25.4
        return int(round(mm * self.dpi / 25.4))

    def parse(self):
        b = self.buf
        while b:
            if b[0] == 0x1B:
                if len(b) < 3:
                    return
                command = bytes(b[:3])
                del b[:3]
                if command == b"\x1b!?":
                    self.send(bytes([self.status_byte]))
                continue
            if b[0] in (0x0D, 0x0A, 0x20, 0x00):
                del b[:1]
                continue
            if b.startswith(b"BITMAP "):
                commas, end = 0, -1
                for i in range(len(b)):
                    if b[i] == 0x2C:
                        commas += 1
                        if commas == 5:
                            end = i
                            break
                if end < 0:
                    return
                x, y, wb, h, mode = [int(v) for v in bytes(b[7:end]).decode().split(",")]
                need = end + 1 + wb * h
                if len(b) < need:
                    return
                self.commands.append(bytes(b[: end + 1]).decode())
                self.draw(x, y, wb, h, mode, bytes(b[end + 1 : need]))
                del b[:need]
                continue
            nl = b.find(b"\n")
            if nl < 0:
                return
            line = bytes(b[:nl]).decode("latin-1").strip()
            del b[: nl + 1]
            self.line(line)

    def line(self, line):
        self.commands.append(line)
        name, _, rest = line.partition(" ")
        args = [a.strip() for a in rest.split(",")] if rest else []
        if name == "SIZE":
            self.size = (self.dots(args[0]), self.dots(args[1]))
        elif name == "CLS":
            w, h = self.size
            self.canvas = [bytearray(w) for _ in range(h)]
        elif name == "PRINT":
            counts = [int(a) for a in args] or [1]
            copies = counts[0] * (counts[1] if len(counts) > 1 else 1)
            w, h = self.size
            rows = [bytes(r) for r in (self.canvas or [bytearray(w) for _ in range(h)])]
            for _ in range(copies):
                self.waiting.append((w, h, rows, list(self.commands)))
            self.commands = []

    def draw(self, x, y, wb, h, mode, data):
        if self.canvas is None:
            return
        height, width = len(self.canvas), len(self.canvas[0]) if self.canvas else 0
        for row in range(h):
            yy = y + row
            if yy >= height:
                break
            for col in range(wb):
                ink = ~data[row * wb + col] & 0xFF
                for bit in range(8):
                    xx = x + col * 8 + bit
                    if xx >= width:
                        break
                    black = (ink >> (7 - bit)) & 1
                    if mode == 0:
                        self.canvas[yy][xx] = black
                    elif mode == 1:
                        self.canvas[yy][xx] |= black
                    else:
                        self.canvas[yy][xx] ^= black

    def faulted(self):
        return self.status_byte & self.FAULTS



class EPL2(Printer):
    """An EPL2 printer, as Zebra's EPL2 Programming Guide describes one: LF-terminated
    commands (CR ignored); GWx,y,bytes,rows followed by exactly bytes * rows bytes in which a
    0 bit is black; ^ee answered with the error code and CR LF."""

    vid, pid = 0x0A5F, 0x0009
    manufacturer, product = "Zebra Technologies", "LP 2844"
    device_id = "MFG:Zebra Technologies;CMD:EPL;MDL:LP 2844;CLS:PRINTER;"

    def __init__(self, *a):
        super().__init__(*a)
        self.error = 0
        self.labels = 0
        self.waiting = []
        self.buf = bytearray()
        self.width, self.length = 0, None
        self.graphics = []
        self.commands = []

    def reset_state(self):
        super().reset_state()
        self.buf = bytearray()

    def received(self, data):
        self.buf += data
        b = self.buf
        while b:
            if b[0] in (0x0D, 0x0A, 0x20, 0x00):
                del b[:1]
                continue
            nl = b.find(b"\n")
            if nl < 0:
                break
            line = bytes(b[:nl]).decode("latin-1").rstrip("\r")
            if line.startswith("GW"):
                x, y, n, rows = [int(v) for v in line[2:].split(",")]
                if len(b) < nl + 1 + n * rows:
                    break
                self.graphics.append((x, y, n, rows, bytes(b[nl + 1 : nl + 1 + n * rows])))
                self.commands.append(line)
                del b[: nl + 1 + n * rows]
                continue
            del b[: nl + 1]
            self.line(line)
        self.flush()

    def line(self, line):
        if line == "^ee":
            self.send(b"%02d\r\n" % self.error)
            return
        self.commands.append(line)
        if line == "N":
            self.graphics = []
        elif line.startswith("q"):
            self.width = int(line[1:])
        elif line.startswith("Q"):
            self.length = int(line[1:].split(",")[0])
        elif line.startswith("P") and line[1:2].isdigit():
            counts = [int(v) for v in line[1:].split(",")]
            copies = counts[0] * (counts[1] if len(counts) > 1 else 1)
            height = self.length or max([g[1] + g[3] for g in self.graphics] or [0])
            canvas = [bytearray(self.width) for _ in range(height)]
            for x, y, n, rows, data in self.graphics:
                for r in range(rows):
                    if y + r >= height:
                        break
                    for c in range(n):
                        ink = ~data[r * n + c] & 0xFF
                        for bit in range(8):
                            if ink >> (7 - bit) & 1 and x + c * 8 + bit < self.width:
                                canvas[y + r][x + c * 8 + bit] = 1
            for _ in range(copies):
                self.waiting.append((self.width, height, canvas, list(self.commands)))
            self.commands = []

    def faulted(self):
        return self.error in (7, 11, 12, 13, 14, 81, 84)

    def command(self, words):
        if words[0] == "error":
            self.error = int(words[1])
            self.flush()
            return True
        return False


class DymoLW(StatusByte, Printer):
    """A DYMO LabelWriter 450, as its Technical Reference describes one: ESC commands, SYN +
    bytes-per-line raw lines and ETB run-length lines (bit 7 black, low bits length - 1)
    placed after the dot tab, ESC f 1 n skips, a label ends at ESC E or ESC G; ESC A is
    answered with the status byte (03: ready, top of form)."""

    vid, pid = 0x0922, 0x0020
    manufacturer, product = "DYMO", "DYMO LabelWriter 450"
    device_id = "MFG:DYMO;CMD: ;MDL:LabelWriter 450;CLASS:PRINTER;DESCRIPTION:DYMO LabelWriter 450;"
    head = 672

    def __init__(self, *a):
        super().__init__(*a)
        self.status_byte = 0x03
        self.labels = 0
        self.waiting = []
        self.buf = bytearray()
        self.reset_page()
        self.bytes_per_line, self.dot_tab = 84, 0
        self.commands = []

    def reset_state(self):
        super().reset_state()
        self.buf = bytearray()

    def reset_page(self):
        self.rows = []

    def line(self, data):
        row = bytearray(self.head)
        for k, byte in enumerate(data):
            for bit in range(8):
                x = (self.dot_tab + k) * 8 + bit
                if byte & (0x80 >> bit) and x < self.head:
                    row[x] = 1
        self.rows.append(row)

    def received(self, data):
        self.buf += data
        b = self.buf
        while b:
            if b[0] == 0x16:
                if len(b) < 1 + self.bytes_per_line:
                    break
                self.line(b[1 : 1 + self.bytes_per_line])
                del b[: 1 + self.bytes_per_line]
            elif b[0] == 0x17:
                dots, i, data = self.bytes_per_line * 8, 1, bytearray(self.bytes_per_line)
                x = 0
                while x < dots and i < len(b):
                    n = (b[i] & 0x7F) + 1
                    if b[i] & 0x80:
                        for d in range(x, min(x + n, dots)):
                            data[d // 8] |= 0x80 >> (d % 8)
                    x += n
                    i += 1
                if x < dots:
                    break
                self.line(data)
                del b[:i]
            elif b[0] == 0x1B:
                if len(b) < 2:
                    break
                c = b[1]
                args = {0x42: 1, 0x44: 1, 0x4C: 2, 0x51: 2, 0x71: 1, 0x66: 2}.get(c, 0)
                if c == 0x1B:
                    del b[:1]
                    continue
                if len(b) < 2 + args:
                    break
                a = bytes(b[2 : 2 + args])
                del b[: 2 + args]
                self.command_byte(c, a)
            else:
                del b[:1]
        self.flush()

    def command_byte(self, c, a):
        if c == 0x41:
            self.send(bytes([self.status_byte]))
            return
        self.commands.append("ESC %s %s" % (chr(c), a.hex()) if a else "ESC %s" % chr(c))
        if c == 0x40:
            self.bytes_per_line, self.dot_tab = 84, 0
        elif c == 0x42:
            self.dot_tab = a[0]
        elif c == 0x44:
            self.bytes_per_line = max(a[0], 1)
        elif c == 0x66:
            for _ in range(a[1]):
                self.rows.append(bytearray(self.head))
        elif c in (0x45, 0x47):
            self.waiting.append((self.head, len(self.rows), self.rows, list(self.commands)))
            self.commands = []
            self.reset_page()

    def faulted(self):
        return self.status_byte & 0xE0 or not self.status_byte & 0x01



class DymoLW5(Printer):
    """A DYMO LabelWriter 550, as its Technical Reference describes one: ESC s starts a job,
    ESC n numbers a label, ESC D 01 02 LINES DOTS (least significant byte first) is
    followed by LINES x DOTS/8 bytes (1 = black), ESC G ends a label, ESC Q the job; ESC A n
    is answered with 32 status bytes (bay, head, job id, SKU, labels remaining)."""

    vid, pid = 0x0922, 0x0028
    manufacturer, product = "DYMO", "DYMO LabelWriter 550"
    device_id = "MFG:DYMO;CMD: ;MDL:LabelWriter 550;CLASS:PRINTER;DESCRIPTION:DYMO LabelWriter 550;"
    head = 672
    ARGS = {0x73: 4, 0x41: 1, 0x4C: 2, 0x6E: 2, 0x43: 1, 0x54: 1, 0x71: 1, 0x6F: 1, 0x4D: 8}

    def __init__(self, *a):
        super().__init__(*a)
        self.bay, self.head_state, self.remaining = 8, 0, 200
        self.sku = b"30252"
        self.job_id, self.index = 0, 0
        self.labels = 0
        self.waiting = []
        self.buf = bytearray()
        self.commands = []

    def reset_state(self):
        super().reset_state()
        self.buf = bytearray()

    def status(self):
        b = bytearray(32)
        b[0] = 1 if self.waiting else 0
        b[1:5] = self.job_id.to_bytes(4, "little")
        b[5:7] = self.index.to_bytes(2, "little")
        b[8] = self.head_state
        b[9] = 100
        b[10] = self.bay
        if self.bay not in (1, 2):
            b[11 : 11 + len(self.sku)] = self.sku
            b[27:29] = self.remaining.to_bytes(2, "little")
        b[29], b[30], b[31] = 1, 1, 0xFF
        return bytes(b)

    def received(self, data):
        self.buf += data
        b = self.buf
        while b:
            if b[0] != 0x1B:
                del b[:1]
                continue
            if len(b) < 2:
                break
            c = b[1]
            if c == 0x44:
                if len(b) < 12:
                    break
                lines = int.from_bytes(b[4:8], "little")
                dots = int.from_bytes(b[8:12], "little")
                per = (dots + 7) // 8
                if len(b) < 12 + lines * per:
                    break
                data_ = bytes(b[12 : 12 + lines * per])
                rows = []
                for y in range(lines):
                    row = bytearray(self.head)
                    for x in range(min(dots, self.head)):
                        if data_[y * per + x // 8] & (0x80 >> (x % 8)):
                            row[x] = 1
                    rows.append(row)
                self.commands.append("ESC D 01 02 %d %d" % (lines, dots))
                self.waiting.append((self.head, lines, rows, list(self.commands)))
                self.commands = []
                del b[: 12 + lines * per]
                continue
            n = self.ARGS.get(c, 0)
            if len(b) < 2 + n:
                break
            a = bytes(b[2 : 2 + n])
            del b[: 2 + n]
            if c == 0x41:
                self.flush()
                self.send(self.status())
                continue
            self.commands.append("ESC %s %s" % (chr(c), a.hex()) if a else "ESC %s" % chr(c))
            if c == 0x73:
                self.job_id = int.from_bytes(a, "little")
            elif c == 0x6E:
                self.index = int.from_bytes(a, "little")
            elif c == 0x51:
                self.job_id = 0
        self.flush()

    def faulted(self):
        return self.bay not in (4, 6, 7, 8) or self.head_state == 1

    def print_label(self, label):
        self.remaining = max(self.remaining - 1, 0)
        Printer.print_label(self, label)

    def command(self, words):
        if words[0] == "bay":
            self.bay = int(words[1])
        elif words[0] == "head":
            self.head_state = int(words[1])
        elif words[0] == "remaining":
            self.remaining = int(words[1])
        else:
            return False
        self.flush()
        return True


class DymoLM(Printer):
    """A DYMO LabelManager PnP in printer mode (labelle: 0922:1002; it first comes up as a
    mass-storage device, 0922:1001, and is switched: only the printer mode is emulated, and
    only its printer interface): the stream of dymo_lm.py on a 64-dot head; a label ends at
    ESC E or when no byte came for label-gap seconds, and waits while there is no cassette,
    the head is overheated or the general error bit is set; ESC A answers 8 status bytes,
    busy while a label is under way."""

    vid, pid = 0x0922, 0x1002
    manufacturer, product = "Dymo", "DYMO LabelManager PnP"
    device_id = ("MFG:DYMO;CMD: ;MDL:LabelManager PnP;CLASS:PRINTER;"
                 "DESCRIPTION:DYMO LabelManager PnP;")

    def __init__(self, *a):
        super().__init__(*a)
        self.tape = "12"
        self.overheat = False
        self.error = False
        self.size_code = False
        self.label_gap = 0.5
        self.labels = 0
        self.waiting = []
        self.stream = dymo_lm.Stream()
        self.timer = None
        self.generation = 0

    def reset_state(self):
        super().reset_state()
        self.stream = dymo_lm.Stream()
        self.cancel_gap()

    def cancel_gap(self):
        # A timer that fired but waits for the lock finds a newer generation and does nothing.
        self.generation += 1
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def status(self):
        busy = bool(self.stream.rows)
        return dymo_lm.status_bytes(self.tape, busy, self.overheat, self.error, self.size_code)

    def received(self, data):
        self.cancel_gap()
        for what in self.stream.feed(data):
            if what == "status":
                self.send(self.status())
            else:
                self.end_label()
        if self.stream.rows:
            self.timer = threading.Timer(self.label_gap, self.gap, (self.generation,))
            self.timer.daemon = True
            self.timer.start()

    def gap(self, generation):
        with LOCK:
            if generation == self.generation:
                self.timer = None
                self.end_label()

    def end_label(self):
        if self.stream.rows:
            self.waiting.append(self.stream.take_label())
            self.flush()

    def faulted(self):
        return self.tape is None or self.overheat or self.error

    def print_label(self, label):
        rows, commands, notes = label
        dots, outside = dymo_lm.label_rows(rows, self.tape)
        if outside:
            notes = notes + ["%d dots inked off the %s mm tape" % (outside, self.tape)]
        for note in notes:
            event("%s label %d: %s" % (self.serial, self.labels, note))
        write_label(self, len(dots[0]) if dots else dymo_lm.TAPE_DOTS[self.tape], len(dots),
                    dots, commands)

    def command(self, words):
        w, arg = words[0], words[1] if len(words) > 1 else ""
        if w == "tape" and (arg == "none" or arg in dymo_lm.TAPE_DOTS):
            self.tape = None if arg == "none" else arg
        elif w == "overheat":
            self.overheat = arg == "on"
        elif w == "error":
            self.error = arg == "on"
        elif w == "size-code":
            self.size_code = arg == "on"
        elif w == "label-gap":
            self.label_gap = float(arg)
        else:
            return False
        self.flush()
        return True


KINDS = {"ql820": BrotherQL, "zebra": Zebra, "tspl": TSPL, "epl2": EPL2, "dymo450": DymoLW,
         "dymo550": DymoLW5, "ptouch": PTouch, "dymolm": DymoLM}


def apply(printers, line):
    words = line.split()
    if len(words) < 2 or words[0] not in printers:
        event("bad command %r" % line)
        return
    p = printers[words[0]]
    cmd = words[1:]
    if cmd[0] == "unplug":
        p.unplug()
    elif cmd[0] == "plug":
        p.plug()
    else:
        with LOCK:
            if cmd[0] == "silent":
                p.silent = cmd[1] == "on"
            elif cmd[0] == "claimed":
                p.claimed_elsewhere = cmd[1] == "on"
            elif cmd[0] == "unplug-after":
                p.unplug_after = int(cmd[1])
            elif not p.command(cmd):
                event("bad command %r" % line)
                return
    event("%s did %s" % (words[0], " ".join(cmd)))


def main():
    global EVENTS
    # A parent may start us with signals blocked: clear the mask first, before any thread
    # or child inherits it, or SIGTERM never reaches the main loop (nor labeld, once
    # forwarded) and the test waits for ever.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--printer", action="append", default=[])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        sys.exit("usbprinter.py must run under umockdev-wrapper (uevents need the preload)")
    os.makedirs(args.dir, exist_ok=True)
    EVENTS = os.path.join(args.dir, "events.log")
    bed = UMockdev.Testbed.new()
    printers = {}
    for i, spec in enumerate(args.printer):
        kind, serial = spec.split(":", 1)
        p = KINDS[kind](bed, serial, i + 1, args.dir)
        printers[serial] = p
        p.plug()

    control = os.path.join(args.dir, "control")
    if not os.path.exists(control):
        os.mkfifo(control)

    def reader():
        fd = os.open(control, os.O_RDWR)  # RDWR: never sees EOF when writers come and go
        with os.fdopen(fd, "r") as f:
            for line in f:
                line = line.strip()
                if line:
                    GLib.idle_add(lambda l=line: apply(printers, l) and False)

    threading.Thread(target=reader, daemon=True).start()

    env = dict(os.environ)
    env["UMOCKDEV_DIR"] = bed.get_root_dir()
    loop = GLib.MainLoop()
    pid = os.fork()
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        os.execvpe(command[0], command, env)
    status = {"code": 1}

    def forward(sig):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
        return True

    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, sig, forward, sig)

    def exited(pid_, wait_status):
        status["code"] = os.waitstatus_to_exitcode(wait_status)
        loop.quit()

    GLib.child_watch_add(GLib.PRIORITY_DEFAULT, pid, exited)
    loop.run()
    # The testbed's files (a umockdev.* directory in TMPDIR): Python exits without
    # finalising the testbed, which would remove them.
    shutil.rmtree(bed.get_root_dir(), ignore_errors=True)
    code = status["code"]
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
