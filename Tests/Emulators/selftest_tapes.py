#!/usr/bin/python3
"""Self-test of the emulated tape printers, without labeld. Jobs are built here by hand, as
Brother's Raster Command Reference and DYMO's LabelManager driver lay them out, and each
printed bitmap must come back as the one sent.

    /usr/bin/python3 selftest_tapes.py [--no-usb]

  1. the P-touch stream (ptouch_raster.py) and the LabelManager stream (dymo_lm.py);
  2. netprinter.py --kind ptouch: a job over TCP, the status over SNMP (a few-line SNMPv1
     GET below, as net-snmp's client is not installed here), faults from its FIFO;
  3. usbprinter.py with a ptouch and a dymolm printer under umockdev-wrapper, this script
     as its child talking to them through the real libusb (ctypes): --usb-client DIR.
Exits 0 when all pass; prints one line per check.
"""

import ctypes
import os
import random
import select
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # and -B for the emulators: no __pycache__ left in the tree

import dymo_lm  # noqa: E402
import ptouch_raster  # noqa: E402

FAILURES = []

# The tables the jobs here are built with, written out again rather than taken from the
# emulator, so that a wrong entry there fails here.
# Brother, Raster Command Reference PT-E550W/P750W/P710BT, 2.3 Print Area (180 dpi):
# width byte -> (print-area pins, left-margin pins).
PT_AREA = {4: (24, 52), 6: (32, 48), 9: (50, 39), 12: (70, 29), 18: (112, 8), 24: (128, 0)}
# LabelManager PnP: tape -> (first head dot, dots): labelle's 8 x mm / 12 bytes, centred on
# the 64-dot head as DYMO's driver centres a line.
LM_AREA = {"12": (0, 64), "9": (8, 48), "6": (16, 32)}


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, ": " + detail if detail and not ok else ""))
    if not ok:
        FAILURES.append(name)


# Building jobs ---------------------------------------------------------------------------

def bitmap(width, height, seed):
    """Rows of 0/1, some blank, the rest noise: every dot of the area matters."""
    rnd = random.Random(seed)
    return [[0] * width if y % 7 == 3 else [rnd.randint(0, 1) for _ in range(width)]
            for y in range(height)]


def pbm(rows, width):
    out = bytearray(b"P4\n%d %d\n" % (width, len(rows)))
    for row in rows:
        for x in range(0, width, 8):
            out.append(sum(row[x + b] << (7 - b) for b in range(8) if x + b < width))
    return bytes(out)


def packbits(data):
    """TIFF PackBits: a run of 2+ equal bytes as 257 - n and the byte, else literals."""
    out = bytearray()
    i = 0
    while i < len(data):
        j = i
        while j + 1 < len(data) and data[j + 1] == data[i] and j - i < 127:
            j += 1
        if j > i:
            out += bytes([257 - (j - i + 1), data[i]])
            i = j + 1
            continue
        j = i
        while j + 1 < len(data) and data[j + 1] != data[j] and j - i < 127:
            j += 1
        if j + 1 < len(data) and j > i:
            j -= 1  # leave the first of a run to the run
        out += bytes([j - i]) + data[i : j + 1]
        i = j + 1
    return bytes(out)


def ptouch_page(rows, width_byte, compressed=True, command=b"G", info=True, first=True,
                last=True, info_width=None):
    """One page as the manual's print data: control codes, raster lines, print command."""
    pins, margin = PT_AREA[width_byte]
    out = bytearray(b"\x1bia\x01")
    if info:
        out += b"\x1biz" + bytes([0x86, 0x01, info_width or width_byte, 0])
        out += len(rows).to_bytes(4, "little") + bytes([0 if first else 1, 0])
    out += b"\x1biM\x40" + b"\x1biK\x08" + b"\x1bid\x0e\x00"
    out += b"M\x02" if compressed else b"M\x00"
    for row in rows:
        value = 0
        for x, dot in enumerate(row):
            value |= dot << (127 - margin - x)
        line = value.to_bytes(16, "big")
        if compressed and not value:
            out += b"Z"
            continue
        data = packbits(line) if compressed else line
        out += command + len(data).to_bytes(2, "little") + data
    out += b"\x1a" if last else b"\x0c"
    return bytes(out)


def ptouch_job(pages, width_byte, **kw):
    out = bytearray(100) + b"\x1b@"
    for i, rows in enumerate(pages):
        out += ptouch_page(rows, width_byte, first=i == 0, last=i == len(pages) - 1, **kw)
    return bytes(out)


def lm_job(rows, tape):
    """A label as DYMO's LabelManager driver sends it: tape colour, then per line the dot
    tab and bytes per line of its inked bytes and SYN + those bytes; blank lines as
    ESC D 0 + SYN. A status request in the middle, as labelle sends one every 64 lines."""
    first, dots = LM_AREA[tape]
    out = bytearray(8) + b"\x1bC\x00"
    for y, row in enumerate(rows):
        value = 0
        for x, dot in enumerate(row):
            value |= dot << (63 - first - x)
        line = value.to_bytes(8, "big")
        if y == len(rows) // 2:
            out += b"\x1bA"
        if not value:
            out += b"\x1bD\x00\x16"
            continue
        lead = next(i for i, b in enumerate(line) if b)
        end = max(i for i, b in enumerate(line) if b) + 1
        out += b"\x1bB" + bytes([lead]) + b"\x1bD" + bytes([end - lead]) + b"\x16" + line[lead:end]
    return bytes(out)


def feed_in_chunks(stream, data, seed):
    rnd = random.Random(seed)
    out, i = [], 0
    while i < len(data):
        n = rnd.randint(1, 97)
        out += stream.feed(data[i : i + n])
        i += n
    return out


# 1. The parsers ------------------------------------------------------------------------

def test_ptouch_stream():
    pages = [bitmap(70, 120, 1), bitmap(70, 45, 2)]
    job = ptouch_job(pages, 12)
    got = feed_in_chunks(ptouch_raster.Stream(), job, 3)
    printed = [p for what, p in got if what == "page"]
    check("ptouch: two pages from a two-page job", len(printed) == 2)
    for i, page in enumerate(printed):
        image, outside = ptouch_raster.page_pbm(page.rows, 12)
        check("ptouch: page %d is the bitmap sent (12 mm, 70 pins from pin 29)" % (i + 1),
              image == pbm(pages[i], 70) and outside == 0)
        check("ptouch: page %d has no notes" % (i + 1), page.notes == [], repr(page.notes))
    check("ptouch: the last page carries the job's bytes", printed[-1].job == job)
    check("ptouch: ESC i z read", printed[0].info == {"flags": 0x86, "kind": 1, "width": 12,
                                                       "length": 0, "lines": 120, "page": 0})

    rows = bitmap(128, 64, 4)
    job = ptouch_job([rows], 24, compressed=False, command=b"g", info=False)
    got = ptouch_raster.Stream().feed(job)
    image, _ = ptouch_raster.page_pbm(got[0][1].rows, 24)
    check("ptouch: uncompressed g lines, no ESC i z, 24 mm", image == pbm(rows, 128))

    rows = bitmap(24, 30, 5)
    got = ptouch_raster.Stream().feed(ptouch_job([rows], 4))
    image, _ = ptouch_raster.page_pbm(got[0][1].rows, 4)
    check("ptouch: 3.5 mm tape (width 4): 24 pins from pin 52", image == pbm(rows, 24))

    stream = ptouch_raster.Stream()
    got = stream.feed(b"\x1biS")
    job = ptouch_job([bitmap(70, 10, 6)], 12)
    got += stream.feed(job)
    check("ptouch: a status poll between jobs is answered, not kept in the job",
          [w for w, _ in got] == ["status", "page"] and got[1][1].job == job)

    bad = bytearray(ptouch_job([bitmap(70, 10, 7)], 12))
    bad[100 + 2 + 4 + 3 + 4] = 11  # ESC i z says 11 lines, 10 come
    got = ptouch_raster.Stream().feed(bytes(bad))
    check("ptouch: a raster count that is not the lines sent is noted",
          got[0][1].notes == ["ESC i z says 11 raster lines, 10 came"], repr(got[0][1].notes))


def test_ptouch_device():
    dev = ptouch_raster.Device(ptouch_raster.PT_P700)
    want = bytes([0x80, 0x20, 0x42, 0x30, 0x67, 0x30, 0, 0, 0, 0, 12, 0x01]) + bytes(12)
    want += bytes([0x01, 0x08]) + bytes(6)
    check("ptouch: ESC i S answer, 12 mm laminated, white tape, black text",
          dev.status() == want, dev.status().hex(" "))
    page = ptouch_raster.Stream().feed(ptouch_job([bitmap(70, 10, 8)], 12))[0][1]
    check("ptouch: a 12 mm job prints on 12 mm tape", dev.refusal(page) is None)
    dev.command(["tape", "24"])
    check("ptouch: a 12 mm job is refused on 24 mm tape (replace media)",
          dev.refusal(page)[:2] == (0, 0x01))
    dev.command(["tape", "none"])
    check("ptouch: no cassette: error information 1 bit 0, width 0",
          dev.status()[8] == 0x01 and dev.status()[10] == 0 and dev.refusal(page) is not None)
    dev.command(["tape", "12"])
    dev.command(["cover", "open"])
    s = dev.status()
    check("ptouch: cover open: error information 2 bit 4, no cassette reported",
          s[9] == 0x10 and s[10] == 0 and s[11] == 0)
    dev.command(["cover", "closed"])
    for words, byte, bit in ((["tape-end"], 8, 0x02), (["cutter", "jam"], 8, 0x04),
                             (["battery", "weak"], 8, 0x08), (["overheat", "on"], 9, 0x20)):
        dev.command(["tape", "12"])
        dev.command(["cutter", "ok"])
        dev.command(["battery", "ok"])
        dev.command(["overheat", "off"])
        dev.command(words)
        check("ptouch: %s sets byte %d bit %02X" % (" ".join(words), byte, bit),
              dev.status()[byte] == bit and dev.refusal(page) is not None)
    dev.command(["overheat", "off"])
    dev.command(["incompatible"])
    s = dev.status()
    check("ptouch: incompatible cassette: media type FF, refused",
          s[11] == 0xFF and s[24] == 0xFF and dev.refusal(page)[:2] == (0, 0x01))


def test_lm():
    for tape in ("12", "9", "6"):
        first, dots = LM_AREA[tape]
        rows = bitmap(dots, 150, int(tape))
        stream = dymo_lm.Stream()
        got = feed_in_chunks(stream, lm_job(rows, tape), 9)
        back, outside = dymo_lm.label_rows(stream.rows, tape)
        check("dymolm: %s mm label is the bitmap sent (%d dots from dot %d)" % (tape, dots, first),
              back == rows and outside == 0)
        check("dymolm: %s mm: one status request answered" % tape, got == ["status"])
    check("dymolm: status with a cassette", dymo_lm.status_bytes("12") == bytes(
        [0x40, 0, 0x02, 0x64, 0x0D, 0xBA, 0, 0]))
    check("dymolm: status with none", dymo_lm.status_bytes(None)[0] == 0)
    check("dymolm: busy, overheated, size code",
          dymo_lm.status_bytes("9", True, True, False, True)[:2] == bytes([0x68, 2]))
    stream = dymo_lm.Stream()
    stream.feed(b"\x1bB\x07\x1bD\x02\x16\xff\xff")
    check("dymolm: ink past the head's last dot is noted", len(stream.notes) == 1)


# 2. The network P-touch ------------------------------------------------------------------

def ber(tag, value):
    n = len(value)
    length = bytes([n]) if n < 128 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes(
        (n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + length + value


def ber_oid(oid):
    parts = [int(p) for p in oid.strip(".").split(".")]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(chunk))
    return ber(0x06, bytes(out))


def ber_items(data):
    i = 0
    while i < len(data):
        tag, n = data[i], data[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7F
            n = int.from_bytes(data[i : i + k], "big")
            i += k
        yield tag, data[i : i + n]
        i += n


def snmp_get(port, oid):
    """SNMPv1 GET, community public: the value's bytes."""
    varbind = ber(0x30, ber_oid(oid) + ber(0x05, b""))
    pdu = ber(0xA0, ber(0x02, b"\x01") + ber(0x02, b"\x00") + ber(0x02, b"\x00") +
              ber(0x30, varbind))
    message = ber(0x30, ber(0x02, b"\x00") + ber(0x04, b"public") + pdu)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    try:
        s.sendto(message, ("127.0.0.1", port))
        reply = s.recv(2048)
    finally:
        s.close()
    _, body = next(ber_items(reply))
    items = list(ber_items(body))
    _, pdu = items[2]
    _, binds = list(ber_items(pdu))[3]
    _, bind = next(ber_items(binds))
    return list(ber_items(bind))[1][1]


STATUS_OID = "1.3.6.1.4.1.2435.3.3.9.1.6.1.0"


def wait_for(what, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        value = what()
        if value:
            return value
        time.sleep(0.05)
    return what()


def test_network():
    with tempfile.TemporaryDirectory(prefix="netptouch.") as d:
        run_network(d)


def run_network(d):
    proc = subprocess.Popen([sys.executable, "-B", os.path.join(HERE, "netprinter.py"),
                             "--dir", d, "--kind", "ptouch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        words = proc.stdout.readline().decode().split() if ready else []
        check("net: starts and names its ports", words[:1] == ["PORT"] and words[2:3] == ["SNMP"],
              repr(words))
        if words[2:3] != ["SNMP"]:
            return
        port, snmp = int(words[1]), int(words[3])

        def status():
            return snmp_get(snmp, STATUS_OID)

        def control(line):
            with open(os.path.join(d, "control"), "w") as f:
                f.write(line + "\n")

        def send(job):
            with socket.create_connection(("127.0.0.1", port)) as c:
                c.sendall(job)

        def events():
            try:
                with open(os.path.join(d, "events.log")) as f:
                    return f.read()
            except FileNotFoundError:
                return ""

        s = status()
        check("net: SNMP status, PT-P750W, 12 mm laminated, no error",
              s[:5] == bytes([0x80, 0x20, 0x42, 0x30, 0x68]) and s[8:12] == bytes([0, 0, 12, 1]),
              s.hex(" "))
        rows = bitmap(70, 80, 11)
        job = ptouch_job([rows], 12)
        send(job)
        printed = wait_for(lambda: os.path.exists(os.path.join(d, "job-1.pt")))
        check("net: a 12 mm job is printed as job-1.pt, its bytes as sent",
              printed and open(os.path.join(d, "job-1.pt"), "rb").read() == job)
        check("net: and its page as page-1.pbm, the bitmap sent",
              printed and open(os.path.join(d, "page-1.pbm"), "rb").read() == pbm(rows, 70))

        control("tape 24")
        check("net: tape 24 shows in the status", wait_for(lambda: status()[10] == 24))
        send(job)
        refused = wait_for(lambda: "refused job" in events())
        check("net: a 12 mm job on 24 mm tape is refused", refused and not os.path.exists(
            os.path.join(d, "job-2.pt")))
        check("net: and the status shows replace media", status()[9] == 0x01, status().hex(" "))

        control("cover open")
        check("net: cover open shows, no cassette reported",
              wait_for(lambda: status()[9] == 0x10 and status()[10] == 0), status().hex(" "))
        rows24 = bitmap(128, 40, 12)
        send(ptouch_job([rows24], 24))
        time.sleep(0.5)
        check("net: a job waits while the cover is open",
              not os.path.exists(os.path.join(d, "job-2.pt")))
        control("cover closed")
        printed = wait_for(lambda: os.path.exists(os.path.join(d, "job-2.pt")))
        check("net: and prints once it is closed", printed and open(
            os.path.join(d, "page-2.pbm"), "rb").read() == pbm(rows24, 128))
        check("net: status clear again", status()[8:10] == b"\0\0", status().hex(" "))
        control("tape-end")
        check("net: tape-end: error information 1 bit 1, width kept",
              wait_for(lambda: status()[8] == 0x02 and status()[10] == 24), status().hex(" "))
        control("tape none")
        check("net: no tape: error information 1 bit 0",
              wait_for(lambda: status()[8] == 0x01 and status()[10] == 0), status().hex(" "))
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    check("net: ends when its stdin closes", proc.returncode == 0, str(proc.returncode))


# 3. The USB printers, through libusb under umockdev ---------------------------------------

def test_usb():
    with tempfile.TemporaryDirectory(prefix="usbtapes.") as d:
        run_usb(d)


def run_usb(d):
    proc = subprocess.run(
        ["umockdev-wrapper", "/usr/bin/python3", "-B", os.path.join(HERE, "usbprinter.py"),
         "--dir", d, "--printer", "ptouch:PT1", "--printer", "dymolm:LM1", "--",
         "/usr/bin/python3", "-B", os.path.abspath(__file__), "--usb-client", d],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    sys.stdout.write(proc.stdout.decode(errors="replace"))
    check("usb: the client ran to the end", proc.returncode == 0, str(proc.returncode))


class LibUSB:
    def __init__(self):
        self.lib = ctypes.CDLL("libusb-1.0.so.0")
        self.lib.libusb_open_device_with_vid_pid.restype = ctypes.c_void_p
        self.lib.libusb_open_device_with_vid_pid.argtypes = [ctypes.c_void_p, ctypes.c_uint16,
                                                             ctypes.c_uint16]
        for name in ("libusb_claim_interface", "libusb_release_interface"):
            getattr(self.lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib.libusb_bulk_transfer.argtypes = [
            ctypes.c_void_p, ctypes.c_ubyte, ctypes.c_char_p, ctypes.c_int,
            ctypes.POINTER(ctypes.c_int), ctypes.c_uint]
        self.lib.libusb_control_transfer.argtypes = [
            ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint16,
            ctypes.c_char_p, ctypes.c_uint16, ctypes.c_uint]
        self.lib.libusb_close.argtypes = [ctypes.c_void_p]
        self.ctx = ctypes.c_void_p()
        self.lib.libusb_init(ctypes.byref(self.ctx))

    def open(self, vid, pid):
        h = self.lib.libusb_open_device_with_vid_pid(self.ctx, vid, pid)
        if h and self.lib.libusb_claim_interface(h, 0) == 0:
            return h
        return None

    def device_id(self, h):
        buf = ctypes.create_string_buffer(1024)
        n = self.lib.libusb_control_transfer(h, 0xA1, 0, 0, 0, buf, 1024, 1000)
        return buf.raw[2:n].decode() if n > 2 else ""

    def write(self, h, data):
        done = ctypes.c_int()
        for i in range(0, len(data), 4096):
            chunk = data[i : i + 4096]
            rc = self.lib.libusb_bulk_transfer(h, 0x02, chunk, len(chunk), ctypes.byref(done), 2000)
            if rc != 0:
                return False
        return True

    def read(self, h, n, timeout=1000):
        buf = ctypes.create_string_buffer(n)
        done = ctypes.c_int()
        rc = self.lib.libusb_bulk_transfer(h, 0x81, buf, n, ctypes.byref(done), timeout)
        return buf.raw[: done.value] if rc == 0 else b""


def usb_client(d):
    usb = LibUSB()
    h = usb.open(0x04F9, 0x2061)
    check("usb: PT-P700 opened and claimed (04f9:2061)", h is not None)
    if h:
        check("usb: its IEEE-1284 id",
              usb.device_id(h) == "MFG:Brother;CMD:PT-CBP;MDL:PT-P700;CLS:PRINTER;")
        usb.write(h, bytes(100) + b"\x1b@\x1biS")
        s = usb.read(h, 32)
        check("usb: ESC i S: 32 bytes, model 67, 12 mm laminated",
              len(s) == 32 and s[4] == 0x67 and s[10:12] == bytes([12, 1]), s.hex(" "))
        rows = bitmap(70, 90, 21)
        job = ptouch_job([rows], 12)
        usb.write(h, job)
        replies = [usb.read(h, 32) for _ in range(3)]
        kinds = [(r[18], r[19]) if len(r) == 32 else None for r in replies]
        check("usb: printing: phase change, printing completed, phase change",
              kinds == [(6, 1), (1, 1), (6, 0)], repr(kinds))
        page = os.path.join(d, "PT1", "page-1.pbm")
        check("usb: page-1.pbm is the bitmap sent", os.path.exists(page) and open(
            page, "rb").read() == pbm(rows, 70))
        check("usb: job-1.pt holds the job's bytes", open(
            os.path.join(d, "PT1", "job-1.pt"), "rb").read() == job)
        usb.write(h, ptouch_job([bitmap(128, 20, 22)], 24))
        s = usb.read(h, 32)
        check("usb: a 24 mm job on 12 mm tape: error status, replace media",
              len(s) == 32 and s[18] == 0x02 and s[9] == 0x01, s.hex(" "))
        with open(os.path.join(d, "control"), "w") as f:
            f.write("PT1 cover open\n")

        def cover_open():
            usb.write(h, b"\x1biS")
            r = usb.read(h, 32)
            return len(r) == 32 and r[9] & 0x10

        check("usb: cover open from the FIFO shows in ESC i S", wait_for(cover_open))
        check("usb: no page-2.pbm was printed",
              not os.path.exists(os.path.join(d, "PT1", "page-2.pbm")))
        usb.lib.libusb_release_interface(h, 0)
        usb.lib.libusb_close(h)

    h = usb.open(0x0922, 0x1002)
    check("usb: LabelManager PnP opened and claimed (0922:1002)", h is not None)
    if h:
        check("usb: its IEEE-1284 id", "MDL:LabelManager PnP;" in usb.device_id(h))
        usb.write(h, b"\x1bA")
        s = usb.read(h, 64)
        check("usb: ESC A: 8 bytes, cassette present", s == dymo_lm.status_bytes("12"), s.hex(" "))
        rows = bitmap(64, 100, 23)
        job = lm_job(rows, "12")
        half = job.index(b"\x1bA")
        usb.write(h, job[:half] + b"\x1bA")
        s = usb.read(h, 64)
        check("usb: busy while a label is under way", len(s) == 8 and s[0] == 0x60, s.hex(" "))
        usb.write(h, job[half + 2 :] + b"\x1bA")
        usb.read(h, 64)
        label = os.path.join(d, "LM1", "label-1.pbm")
        check("usb: the label ends after the gap, label-1.pbm is the bitmap sent",
              wait_for(lambda: os.path.exists(label)) and open(label, "rb").read() == pbm(rows, 64))
        usb.lib.libusb_close(h)
    sys.exit(1 if FAILURES else 0)


def main():
    if sys.argv[1:2] == ["--usb-client"]:
        usb_client(sys.argv[2])
    test_ptouch_stream()
    test_ptouch_device()
    test_lm()
    test_network()
    if "--no-usb" not in sys.argv:
        test_usb()
    print("%d failed" % len(FAILURES) if FAILURES else "all passed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
