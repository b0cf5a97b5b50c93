"""Brother P-touch tape printers as an emulator sees them: the raster stream a host sends,
the cassette and faults the printer reports in its 32-byte status, and the page it prints.
Shared by the USB emulator (usbprinter.py, kind ptouch: a PT-P700) and the network one
(netprinter.py --kind ptouch: a PT-P750W).

Facts, from Brother's "Software Developer's Manual, Raster Command Reference" for
PT-E550W/P750W/P710BT (v1.01/1.02) and for PT-H500/P700/E500 (v1.10), checked against
ptouch-print (libptouch.c), LPrint's devdocs/BROTHER.md and field reports:
  - A job: invalidate (NULs), ESC @; per page ESC i a 01 (raster mode), ESC i ! n (automatic
    status notification: 0 notify), ESC i z + 10 bytes (print information: valid flags 02
    media type, 04 width, 08 length, 40 quality, 80 recovery; media type; width mm; length
    mm; raster line count, little-endian uint32; 0 first page, 1 others; 0), ESC i M n
    (various mode: 40 auto cut, 80 mirror), ESC i A n (cut every n labels), ESC i K n
    (advanced mode: 04 half cut, 08 no chain printing, 40 high resolution), ESC i d n1 n2
    (margin, dots), M n (compression: 0 none, 2 TIFF PackBits); raster lines as
    G n1 n2 data (the E550W/P750W manual) or g n1 n2 data (the H500/P700/E500 manual),
    n1 + 256 n2 data bytes, and Z for a blank line; FF (0C) prints a page with more to come,
    ^Z (1A) prints the last page and feeds.
  - The head has 128 pins at 180 dpi: a raster line is 16 bytes once expanded, the first
    byte's most significant bit is pin 0. Expanded data short of 16 bytes is filled with 0,
    data past it is cut off (the P700 manual's "g" command).
  - Print area per tape (manual section 2.3 "Print Area"; the same table in
    pt-p710bt-label-maker's media_info.py and the ptouch package's PIN_CONFIGS):
    tape mm: print-area pins, left-margin pins (right margin = left margin)
    3.5: 24, 52   6: 32, 48   9: 50, 39   12: 70, 29   18: 112, 8   24: 128, 0
    The status reports 3.5 mm tape as width 4 (ptouch-print's tape table, ptouchgo).
  - If ESC i z sets the media type, width or length valid flag and the loaded cassette is
    not that media, the printer answers an error status with error information 2 bit 0
    ("replace media") and does not print.
  - Status (ESC i S, 32 bytes): 80 20 42, series 30 ('0' = PT), model (PT-P700 67 'g' in
    LPrint's table, PT-P750W 68 'h' and PT-P710BT 76 in ptouchgo), 30, 00, 00; byte 8 error
    information 1 (01 no media, 02 end of media, 04 cutter jam, 08 weak batteries, 40
    high-voltage adapter); byte 9 error information 2 (01 replace media, 10 cover open, 20
    overheating); 10 media width mm; 11 media type (00 none, 01 laminated, 03 non-laminated,
    11 heat-shrink tube, FF incompatible); 15 mode (the ESC i M value); 17 media length (0);
    18 status type (00 reply, 01 printing completed, 02 error, 05 notification, 06 phase
    change); 19 phase type (00 receiving, 01 printing); 20-21 phase number; 22 notification;
    24 tape colour (01 white ... FF incompatible); 25 text colour (08 black ... FF
    incompatible).
    A real PT-D600 answered 80 20 42 30 6a 30 00 00 00 00 09 01 ... 01 08 (byte 6 is 00).
    A PT-P950NW with its cover open reported no media width or type (field report); an
    exhausted cassette kept its width and type with error information 1 bit 1.
"""

import os

HEAD_PINS = 128
LINE_BYTES = 16

# Model codes (status byte 4): LPrint's BROTHER.md ("g0" PT-P700) and ptouchgo (PT-P750W).
PT_P700 = 0x67
PT_P750W = 0x68

# Tape name -> the width byte the status reports.
TAPE_WIDTHS = {"3.5": 4, "6": 6, "9": 9, "12": 12, "18": 18, "24": 24}
# Width byte -> (print-area pins, left-margin pins), manual section 2.3.
PRINT_AREA = {4: (24, 52), 6: (32, 48), 9: (50, 39), 12: (70, 29), 18: (112, 8), 24: (128, 0)}

NO_MEDIA, LAMINATED, NON_LAMINATED, INCOMPATIBLE = 0x00, 0x01, 0x03, 0xFF
WHITE, BLACK = 0x01, 0x08

# ESC i commands -> argument bytes (R: "select graphics transfer mode", older models).
ESC_I_ARGS = {0x53: 0, 0x61: 1, 0x21: 1, 0x7A: 10, 0x4D: 1, 0x41: 1, 0x4B: 1, 0x64: 2, 0x52: 1}


def packbits_decode(data):
    """TIFF PackBits: n < 128 copies n + 1 bytes, n > 128 repeats the next byte 257 - n
    times, 128 is a no-op. None when the data ends before a repeated byte (a literal run
    cut short gives what there is, as the QL emulator always had it)."""
    out = bytearray()
    i = 0
    while i < len(data):
        n = data[i]
        i += 1
        if n < 128:
            out += data[i : i + n + 1]
            i += n + 1
        elif n > 128:
            if i >= len(data):
                return None
            out += bytes([data[i]]) * (257 - n)
            i += 1
    return bytes(out)


class Page:
    """One page as the host sent it: its raster lines and the settings in force."""

    def __init__(self, stream, last):
        self.info = stream.info  # ESC i z as a dict, or None when the page had none
        self.rows = stream.rows  # 16-byte lines, in the order sent
        self.mode = stream.mode
        self.advanced = stream.advanced
        self.margin = stream.margin
        self.notify = stream.notify
        self.job_number = stream.job_number
        self.last = last
        self.notes = list(stream.notes)
        if not stream.raster_mode:
            self.notes.append("no ESC i a 01 (raster mode) before the page")
        info = self.info
        if info is not None and info["lines"] != len(self.rows):
            self.notes.append(
                "ESC i z says %d raster lines, %d came" % (info["lines"], len(self.rows)))
        self.job = None  # the job's bytes, on its last page


class Stream:
    """The bytes one host connection sends, parsed as they come: feed() returns what they
    completed, ("status", None) for each ESC i S and ("page", Page) for each FF or ^Z."""

    def __init__(self):
        self.buf = bytearray()
        self.job = None  # the bytes of the job under way, from its ESC @ (with its NULs)
        self.job_number = 0
        self.nuls = 0
        self.reset()

    def reset(self):
        """ESC @: settings back to their defaults, any page half received dropped."""
        self.info = None
        self.rows = []
        self.notes = []
        self.compressed = False
        self.raster_mode = False
        self.notify = True
        self.mode = 0
        self.advanced = 0
        self.margin = 0

    def record(self, data):
        if self.job is None:
            self.job = bytearray()
        self.job += data

    def feed(self, data):
        self.buf += data
        b = self.buf
        out = []
        i, n = 0, len(b)
        while i < n:
            c = b[i]
            need = 1
            if c == 0x00:  # invalidate
                self.nuls += 1
                if self.job is not None:
                    self.job.append(0)
                i += 1
                continue
            if c == 0x1B:
                if i + 1 >= n:
                    break
                if b[i + 1] == 0x40:  # ESC @: a job starts with it and the NULs before it
                    self.job = bytearray(self.nuls) + b"\x1b\x40"
                    self.job_number += 1
                    self.nuls = 0
                    self.reset()
                    i += 2
                    continue
                if b[i + 1] == 0x69:
                    if i + 2 >= n:
                        break
                    cmd = b[i + 2]
                    if cmd in ESC_I_ARGS:
                        need = 3 + ESC_I_ARGS[cmd]
                        if i + need > n:
                            break
                        if cmd == 0x53:
                            out.append(("status", None))
                            if self.job is None:  # a status poll between jobs
                                i += need
                                self.nuls = 0
                                continue
                        else:
                            self.control(cmd, bytes(b[i + 3 : i + need]))
                    else:
                        self.notes.append("unknown command ESC i %02X" % cmd)
                else:
                    self.notes.append("unknown command ESC %02X" % b[i + 1])
            elif c == 0x4D:  # M n
                need = 2
                if i + need > n:
                    break
                self.compressed = b[i + 1] == 0x02
            elif c in (0x47, 0x67):  # G / g n1 n2 data
                if i + 3 > n:
                    break
                need = 3 + (b[i + 1] | b[i + 2] << 8)
                if i + need > n:
                    break
                self.line(bytes(b[i + 3 : i + need]))
            elif c == 0x5A:  # Z
                self.rows.append(bytes(LINE_BYTES))
            elif c in (0x0C, 0x1A):
                self.record(b[i : i + 1])
                i += 1
                self.nuls = 0
                page = self.end_page(last=c == 0x1A)
                if page is not None:
                    out.append(("page", page))
                continue
            else:
                self.notes.append("unknown byte %02X" % c)
            self.record(b[i : i + need])
            i += need
            self.nuls = 0
        del b[:i]
        return out

    def control(self, cmd, args):
        if cmd == 0x61:
            self.raster_mode = args[0] == 0x01
        elif cmd == 0x21:
            self.notify = args[0] == 0x00
        elif cmd == 0x7A:
            self.info = {
                "flags": args[0], "kind": args[1], "width": args[2], "length": args[3],
                "lines": int.from_bytes(args[4:8], "little"), "page": args[8],
            }
        elif cmd == 0x4D:
            self.mode = args[0]
        elif cmd == 0x4B:
            self.advanced = args[0]
        elif cmd == 0x64:
            self.margin = args[0] | args[1] << 8

    def line(self, data):
        row = packbits_decode(data) if self.compressed else data
        if row is None:
            self.notes.append(
                "raster line %d: PackBits data ends before a repeated byte" % (len(self.rows) + 1))
            row = b""
        self.rows.append(bytes(row[:LINE_BYTES]).ljust(LINE_BYTES, b"\0"))

    def end_page(self, last):
        page = None
        if self.rows or self.info is not None:
            page = Page(self, last)
        self.info, self.rows, self.notes = None, [], []
        if last:
            if page is not None and self.job is not None:
                page.job = bytes(self.job)
            self.job = None
        return page


class Device:
    """The cassette, the faults and the 32-byte status of a P-touch."""

    def __init__(self, model_code):
        self.model_code = model_code
        self.load("12")
        self.cover_open = False
        self.cutter_jam = False
        self.battery_weak = False
        self.overheat = False
        # Error information 2 bit 0 kept after a job for other media was refused (the
        # network printer, whose status is read over SNMP some time after).
        self.wrong_media = False

    def load(self, tape, kind=LAMINATED):
        """A cassette: its width byte (None: no cassette), media type and colours."""
        self.width = None if tape is None else TAPE_WIDTHS[tape]
        self.kind = NO_MEDIA if tape is None else kind
        self.tape_colour, self.text_colour = (0, 0) if tape is None else (WHITE, BLACK)
        self.tape_end = False
        self.wrong_media = False

    def errors(self):
        """The faults now, as (error information 1, error information 2)."""
        e1 = e2 = 0
        if self.width is None:
            e1 |= 0x01
        if self.tape_end:
            e1 |= 0x02
        if self.cutter_jam:
            e1 |= 0x04
        if self.battery_weak:
            e1 |= 0x08
        if self.cover_open:
            e2 |= 0x10
        if self.overheat:
            e2 |= 0x20
        return e1, e2

    def status(self, kind=0x00, phase=0x00, extra=(0, 0), mode=0):
        b = bytearray(32)
        b[0:6] = bytes([0x80, 0x20, 0x42, 0x30, self.model_code, 0x30])
        e1, e2 = self.errors()
        b[8] = e1 | extra[0]
        b[9] = e2 | extra[1] | (0x01 if self.wrong_media else 0)
        # With the cover open the cassette is not reported (a PT-P950NW in the field).
        if not self.cover_open and self.width is not None:
            b[10], b[11] = self.width, self.kind
            b[24], b[25] = self.tape_colour, self.text_colour
        b[15] = mode
        b[18] = kind
        b[19] = phase
        return bytes(b)

    def refusal(self, page):
        """Why this page cannot print now, as (error 1 bits, error 2 bits, reason); None
        when it can."""
        e1, e2 = self.errors()
        if e1 or e2:
            return 0, 0, "fault %02X %02X" % (e1, e2)
        if self.kind == INCOMPATIBLE:
            return 0, 0x01, "incompatible tape"
        info = page.info
        if info is None:
            return None
        flags = info["flags"]
        loaded = "%s mm" % self.width
        if flags & 0x04 and info["width"] != self.width:
            return 0, 0x01, "replace media: job for %d mm, %s loaded" % (info["width"], loaded)
        if flags & 0x02 and info["kind"] != self.kind:
            return 0, 0x01, "replace media: job for media type %02X, %02X loaded" % (
                info["kind"], self.kind)
        if flags & 0x08 and info["length"] != 0:
            return 0, 0x01, "replace media: job for %d mm long media, tape is endless" % (
                info["length"])
        return None

    def command(self, words):
        """The control commands of a P-touch; False for any other."""
        w = words[0]
        arg = words[1] if len(words) > 1 else "on"
        if w == "tape":
            if arg != "none" and arg not in TAPE_WIDTHS:
                return False
            kind = NON_LAMINATED if words[2:3] == ["non-laminated"] else LAMINATED
            self.load(None if arg == "none" else arg, kind)
        elif w == "cover":
            self.cover_open = arg == "open"
            self.wrong_media = False
        elif w == "tape-end":
            self.tape_end = arg == "on"
        elif w == "cutter":
            self.cutter_jam = arg in ("jam", "on")
        elif w == "battery":
            self.battery_weak = arg in ("weak", "on")
        elif w == "overheat":
            self.overheat = arg == "on"
        elif w == "incompatible":
            if self.width is None:
                return False
            on = arg == "on"
            self.kind = INCOMPATIBLE if on else LAMINATED
            self.tape_colour, self.text_colour = (0xFF, 0xFF) if on else (WHITE, BLACK)
        else:
            return False
        return True

    def fail(self, fault):
        """Raises a fault as it would come up while a page prints (fail-next-page)."""
        return self.command({"cover": ["cover", "open"], "tape-end": ["tape-end"],
                             "cutter": ["cutter", "jam"], "none": ["tape", "none"],
                             "media": ["tape", "none"], "overheat": ["overheat", "on"]}
                            .get(fault, ["?"]))


def page_pbm(rows, width):
    """The print area of the tape (width byte) as a P4 PBM in head orientation: column x is
    pin left-margin + x, row y the y-th raster line. Returns (pbm, dots inked outside the
    print area)."""
    pins, margin = PRINT_AREA[width]
    shift = HEAD_PINS - margin - pins
    mask = (1 << pins) - 1
    pad = (8 - pins % 8) % 8
    out = bytearray(b"P4\n%d %d\n" % (pins, len(rows)))
    outside = 0
    for row in rows:
        bits = int.from_bytes(row, "big")
        area = bits >> shift & mask
        outside += bin(bits & ~(mask << shift)).count("1")
        out += (area << pad).to_bytes((pins + pad) // 8, "big")
    return bytes(out), outside


def write_file(path, data):
    """Whole or not at all: a test reading it as soon as it appears never sees half."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
