"""The DYMO LabelManager PnP as an emulator sees it: the stream a host sends, the status
bytes it answers and the label it prints. Used by usbprinter.py (kind dymolm); apart so that
selftest_tapes.py can drive it without umockdev.

Facts, from DYMO's own driver (dymo-cups-drivers 1.4: src/lm/LabelManagerDriver.cpp,
CupsFilterLabelManager.cpp, LabelManagerLanguageMonitor.h/.cpp; Debian's
printer-driver-dymo lmpnp.ppd) and labelle 1.5.0 (lib/devices/dymo_labeler.py):
  - Commands: ESC B n (dot tab: n bytes skipped from the head's first dot), ESC D n (bytes
    per line, 0 = a SYN feeds one blank line), ESC C n (tape colour), SYN (16) + bytes per
    line bytes (one line, the most significant bit the first dot, 1 = black), ESC E (cut,
    models with a cutter), ESC A (status request). DYMO's driver sends no ESC E to a PnP (it
    has no auto cutter, SupportAutoCut false) and nor does labelle: the user cuts the tape,
    so a label here ends at an ESC E or when the host sends nothing for a while (the gap).
  - Head: 64 dots at 180 dpi (MaxPrintableWidth 64 for the PnP; labelle: 180 dpi).
  - Printable dots per tape: labelle's 8 x mm / 12 bytes, 12 mm: 64, 9 mm: 48, 6 mm: 32;
    DYMO's driver centres a line on the head ((64 - line dots) / 2), so the tape's dots are
    head dots 0-63, 8-55 and 16-47 (the PnP takes 6, 9 and 12 mm D1 tape, lmpnp.ppd).
  - Status: DYMO's language monitor reads byte 0: 01/02 cassette size bits (other models),
    04 general error, 08 head overheat, 10 slot status, 20 busy, 40 cassette present, 80 no
    power; for the PnP byte 1 is a tape size code (0 any, 1 6 mm, 2 9 mm, 3 12 mm). A real
    PnP answered 8 bytes, 60 00 12 64 0D B5 00 00 and 60 00 02 64 0D BA 00 00 while
    printing, byte 0 40 idle and 00 with no cassette (dymoprint issue #43): bytes 2-7
    unexplained, byte 1 0 there.
"""

HEAD_DOTS = 64
TAPE_DOTS = {"6": 32, "9": 48, "12": 64}
SIZE_CODES = {"6": 1, "9": 2, "12": 3}

GENERAL_ERROR, HEAD_OVERHEAT, BUSY, CASSETTE_PRESENT = 0x04, 0x08, 0x20, 0x40

ESC, SYN = 0x1B, 0x16
# ESC commands -> argument bytes.
ESC_ARGS = {0x41: 0, 0x42: 1, 0x43: 1, 0x44: 1, 0x45: 0}


def tape_area(tape):
    """The head dots a tape takes: (first dot, dots)."""
    dots = TAPE_DOTS[tape]
    return (HEAD_DOTS - dots) // 2, dots


def status_bytes(tape, busy=False, overheat=False, error=False, size_code=False):
    """The 8 bytes a PnP answers to ESC A; bytes 2-5 as a real one answered."""
    b0 = (CASSETTE_PRESENT if tape else 0) | (BUSY if busy else 0)
    b0 |= (HEAD_OVERHEAT if overheat else 0) | (GENERAL_ERROR if error else 0)
    b1 = SIZE_CODES[tape] if tape and size_code else 0
    return bytes([b0, b1, 0x02, 0x64, 0x0D, 0xBA, 0x00, 0x00])


class Stream:
    """The bytes a host sends, parsed as they come: each line is an int of HEAD_DOTS bits,
    the first head dot the most significant. feed() returns "status" for each ESC A and
    "cut" for each ESC E, in order; the lines so far are in .rows."""

    def __init__(self):
        self.buf = bytearray()
        self.bytes_per_line = HEAD_DOTS // 8
        self.dot_tab = 0
        self.rows = []
        self.commands = []
        self.notes = []

    def take_label(self):
        """The lines, commands and notes of the label so far, which then starts anew."""
        label = (self.rows, self.commands, self.notes)
        self.rows, self.commands, self.notes = [], [], []
        return label

    def line(self, data):
        start = self.dot_tab * 8
        bits = len(data) * 8
        value = int.from_bytes(data, "big")
        if start + bits > HEAD_DOTS:
            cut = start + bits - HEAD_DOTS
            if value & ((1 << min(cut, bits)) - 1):
                self.notes.append("line %d: ink past the head's last dot" % (len(self.rows) + 1))
            value >>= min(cut, bits)
            bits -= min(cut, bits)
        self.rows.append(value << (HEAD_DOTS - start - bits) if bits else 0)

    def feed(self, data):
        self.buf += data
        b = self.buf
        out = []
        while b:
            c = b[0]
            if c == SYN:
                n = 1 + self.bytes_per_line
                if len(b) < n:
                    break
                self.line(bytes(b[1:n]))
                del b[:n]
            elif c == ESC:
                if len(b) < 2:
                    break
                cmd = b[1]
                n = 2 + ESC_ARGS.get(cmd, 0)
                if len(b) < n:
                    break
                args = bytes(b[2:n])
                del b[:n]
                if cmd == 0x41:
                    out.append("status")
                    continue
                self.commands.append(("ESC %s %s" % (chr(cmd), args.hex())).rstrip())
                if cmd == 0x42:
                    self.dot_tab = args[0]
                elif cmd == 0x44:
                    self.bytes_per_line = args[0]
                elif cmd == 0x45:
                    out.append("cut")
                elif cmd not in ESC_ARGS:
                    self.notes.append("unknown command ESC %02X" % cmd)
            else:
                # NULs (DYMO's driver starts a job with a line's worth) and anything unknown.
                del b[:1]
        return out


def label_rows(rows, tape):
    """The tape's part of each line, as lists of 0/1 (head orientation: column x is head
    dot first + x), and the dots inked off the tape."""
    first, dots = tape_area(tape)
    shift = HEAD_DOTS - first - dots
    mask = (1 << dots) - 1
    out, outside = [], 0
    for row in rows:
        area = row >> shift & mask
        outside += bin(row & ~(mask << shift)).count("1")
        out.append([area >> (dots - 1 - x) & 1 for x in range(dots)])
    return out, outside
