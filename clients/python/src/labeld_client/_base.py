"""The two exception classes every other module may raise, in a module that imports
nothing of the kit: :mod:`.models` raises :class:`ProtocolViolation` while parsing, and
:mod:`.errors` (which the public names come from) builds on :mod:`.models`, so neither
imports the other in a circle."""

from __future__ import annotations

__all__ = ["ClientError", "ProtocolViolation"]


class ClientError(Exception):
    """Base class of everything this kit raises."""

    __module__ = "labeld_client.errors"  # where they are imported from, and shown


class ProtocolViolation(ClientError):
    """What came back is not protocol v1: labeld (or whatever answers in its place) broke
    the wire protocol, a WebSocket's frames or its handshake. A retry does not mend it: an
    alert stream or job sequence ends with it (the Swift kit's ``.protocolViolation``)."""

    __module__ = "labeld_client.errors"
