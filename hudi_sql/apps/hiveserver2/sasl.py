"""The server side of Thrift's SASL transport, for the PLAIN mechanism HiveServer2 clients use.

Beeline's JDBC driver and PyHive connect to a HiveServer2 whose authentication is ``NONE``
over SASL PLAIN (``hive.server2.authentication=NONE``); with ``NOSASL`` they send plain
binary Thrift instead. :func:`detect_transport` tells the two apart by the first byte a client
sends, and :class:`SaslServerTransport` answers the SASL negotiation.

Wire format (Thrift's ``TSaslTransport``):

* negotiation messages are ``status`` (one byte) + payload length (4 bytes, big-endian) +
  payload. Statuses: ``START=1``, ``OK=2``, ``BAD=3``, ``ERROR=4``, ``COMPLETE=5``;
* the client opens with ``START`` carrying the mechanism name, then its initial response
  under ``OK`` (or ``COMPLETE``, as Java's client does when its side is done). For PLAIN the
  response is ``authzid NUL authcid NUL password`` (RFC 4616);
* the server answers ``COMPLETE`` with an empty payload when it accepts, or ``BAD`` /
  ``ERROR`` with a message, and closes;
* afterwards every message is a frame: 4-byte big-endian length + data. PLAIN negotiates no
  security layer, so frames carry the Thrift bytes as they are - the same framing as
  :class:`thrift.transport.TTransport.TFramedTransport`, which this transport extends.

A plain binary Thrift client starts with the protocol version word ``0x80 0x01`` (strict
``TBinaryProtocol``), never with ``0x01``, so the first byte is enough to choose.
"""

from __future__ import annotations

__all__ = [
    "PlainCredentials",
    "SaslError",
    "SaslServerTransport",
    "SaslStatus",
    "TransportKind",
    "detect_transport",
    "parse_plain_response",
    "read_sasl_message",
    "write_sasl_message",
]

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, NoReturn

from thrift.transport.TTransport import TFramedTransport, TTransportException

from hudi_sql.errors import HudiError

#: Longest negotiation payload accepted (a PLAIN response is a user name and a password).
MAX_NEGOTIATION_PAYLOAD = 64 * 1024
_HEADER = struct.Struct(">BI")


class SaslStatus(IntEnum):
    """Negotiation status byte of Thrift's SASL transport."""

    START = 1
    OK = 2
    BAD = 3
    ERROR = 4
    COMPLETE = 5


class TransportKind(str, Enum):
    """What a new connection speaks, from its first byte."""

    SASL = "sasl"
    BINARY = "binary"


class SaslError(HudiError):
    """The SASL negotiation failed (bad message, unsupported mechanism, refused credentials)."""


@dataclass(frozen=True)
class PlainCredentials:
    """A PLAIN initial response (RFC 4616): who acts (*authzid*, often empty), who
    authenticates (*user*), and the password (ignored when authentication is NONE)."""

    authzid: str
    user: str
    password: str = ""


def detect_transport(first_byte: bytes) -> TransportKind:
    """SASL when the connection opens with a ``START`` message, plain binary Thrift otherwise."""
    return TransportKind.SASL if first_byte[:1] == bytes([SaslStatus.START]) else TransportKind.BINARY


def parse_plain_response(payload: bytes) -> PlainCredentials:
    """``authzid NUL authcid NUL passwd`` -> :class:`PlainCredentials`.

    Raises:
        SaslError: the payload does not have exactly three NUL-separated parts, or the user
            name is empty.
    """
    parts = payload.split(b"\x00")
    if len(parts) != 3:
        raise SaslError(f"Malformed PLAIN response: expected 'authzid NUL user NUL password', "
                        f"got {len(parts)} part(s).")
    authzid, user, password = (p.decode("utf-8", errors="replace") for p in parts)
    if not user:
        raise SaslError("Malformed PLAIN response: the user name is empty.")
    return PlainCredentials(authzid, user, password)


def _read_all(trans: Any, size: int) -> bytes:
    data = trans.readAll(size) if size else b""
    return bytes(data)


def read_sasl_message(trans: Any) -> tuple[SaslStatus, bytes]:
    """One negotiation message from *trans* (a Thrift transport with ``readAll``).

    Raises:
        SaslError: an unknown status byte or an oversized payload.
    """
    status_byte, length = _HEADER.unpack(_read_all(trans, _HEADER.size))
    try:
        status = SaslStatus(status_byte)
    except ValueError:
        raise SaslError(f"Invalid SASL status byte {status_byte}.") from None
    if length > MAX_NEGOTIATION_PAYLOAD:
        raise SaslError(f"SASL negotiation message of {length} bytes is larger than the "
                        f"{MAX_NEGOTIATION_PAYLOAD} allowed.")
    return status, _read_all(trans, length)


def write_sasl_message(trans: Any, status: SaslStatus, payload: bytes = b"") -> None:
    """Write and flush one negotiation message."""
    trans.write(_HEADER.pack(int(status), len(payload)) + payload)
    trans.flush()


#: Decides whether PLAIN credentials are accepted; the default accepts everyone (auth NONE).
Authenticator = Callable[[PlainCredentials], bool]


def _accept_all(credentials: PlainCredentials) -> bool:
    return True


class SaslServerTransport(TFramedTransport):  # type: ignore[misc]
    """Server end of a SASL PLAIN connection: :meth:`open` negotiates, then frames.

    Wrap an accepted socket transport (``TSocket``); call :meth:`open` before the first read.
    :attr:`user` is the authenticated user name afterwards.
    """

    MECHANISMS = ("PLAIN",)

    def __init__(self, trans: Any, *, authenticate: Authenticator | None = None) -> None:
        super().__init__(trans)
        self._raw = trans
        self._authenticate = authenticate or _accept_all
        self.user: str | None = None

    def open(self) -> None:
        """Answer the client's negotiation.

        Raises:
            SaslError: the negotiation failed; the client was sent ``BAD`` or ``ERROR`` first.
            TTransportException: the connection dropped mid-negotiation.
        """
        if self.user is not None:
            raise TTransportException(TTransportException.ALREADY_OPEN, "SASL negotiation already done.")
        status, mechanism = read_sasl_message(self._raw)
        if status is not SaslStatus.START:
            self._fail(SaslStatus.ERROR, f"Expected a SASL START message, got {status.name}.")
        name = mechanism.decode("ascii", errors="replace").strip().upper()
        if name not in self.MECHANISMS:
            self._fail(SaslStatus.BAD, f"Unsupported SASL mechanism '{name}'; this server offers "
                                       f"{', '.join(self.MECHANISMS)} (authentication NONE).")
        status, response = read_sasl_message(self._raw)
        if status in (SaslStatus.BAD, SaslStatus.ERROR):
            raise SaslError(f"The client aborted the SASL negotiation: {response.decode('utf-8', 'replace')}")
        if status not in (SaslStatus.OK, SaslStatus.COMPLETE):
            self._fail(SaslStatus.ERROR, f"Expected the PLAIN response, got {status.name}.")
        try:
            credentials = parse_plain_response(response)
        except SaslError as e:
            self._fail(SaslStatus.ERROR, str(e))
        if not self._authenticate(credentials):
            self._fail(SaslStatus.BAD, f"Authentication failed for user '{credentials.user}'.")
        write_sasl_message(self._raw, SaslStatus.COMPLETE)
        self.user = credentials.user

    def _fail(self, status: SaslStatus, message: str) -> NoReturn:
        try:
            write_sasl_message(self._raw, status, message.encode("utf-8"))
        except (TTransportException, OSError):
            pass
        raise SaslError(message)
