"""The status answers of an emulated Zebra, shared by the USB and the network emulators:
~HQES (host query, error and warning flags as two 32-bit hex words) and ~HS (host status,
three STX..ETX lines), as Zebra's ZPL II Programming Guide lays them out."""


def hqes(error_flags):
    e = error_flags
    return (
        "\x02\r\n\r\n  PRINTER STATUS\r\n   ERRORS:         %d %08X %08X\r\n"
        "   WARNINGS:       0 00000000 00000000\r\n\x03\r\n" % (1 if e else 0, e >> 32, e & 0xFFFFFFFF)
    ).encode()


def hs(error_flags, waiting):
    e = error_flags
    return (
        "\x02030,%d,%d,1245,%03d,0,0,0,000,0,0,0\x03\r\n"
        "\x02001,0,%d,0,1,2,6,0,00000000,1,000\x03\r\n"
        "\x021234,0\x03\r\n" % (e & 1, 1 if e & 0x10000 else 0, waiting, 1 if e & 4 else 0)
    ).encode()
