"""Server-side SASL PLAIN negotiation: the bytes on the wire, and a real client (thrift_sasl)."""

from __future__ import annotations

import socket
import struct
import threading

import pytest
from thrift.transport.TSocket import TSocket
from thrift.transport.TTransport import TMemoryBuffer

from hudi_sql.apps.hiveserver2.sasl import (
    PlainCredentials,
    SaslError,
    SaslServerTransport,
    SaslStatus,
    TransportKind,
    detect_transport,
    parse_plain_response,
    read_sasl_message,
    write_sasl_message,
)


def message(status: int, payload: bytes) -> bytes:
    return struct.pack(">BI", status, len(payload)) + payload


class Duplex:
    """A transport whose reads come from *incoming* and whose writes are recorded."""

    def __init__(self, incoming: bytes) -> None:
        self.input = TMemoryBuffer(incoming)
        self.written = bytearray()

    def readAll(self, size: int) -> bytes:  # Thrift's name
        return self.input.readAll(size)

    def read(self, size: int) -> bytes:
        return self.input.read(size)

    def write(self, data: bytes) -> None:
        self.written += data

    def flush(self) -> None:
        pass

    def isOpen(self) -> bool:
        return True

    def close(self) -> None:
        pass


def test_detect_transport_start_byte_is_sasl() -> None:
    assert detect_transport(b"\x01") is TransportKind.SASL
    assert detect_transport(b"\x80") is TransportKind.BINARY  # strict TBinaryProtocol version word
    assert detect_transport(b"\x00") is TransportKind.BINARY


def test_parse_plain_response_three_parts_credentials() -> None:
    assert parse_plain_response(b"\x00alice\x00secret") == PlainCredentials("", "alice", "secret")
    assert parse_plain_response(b"admin\x00bob\x00") == PlainCredentials("admin", "bob", "")


@pytest.mark.parametrize("payload", [b"alice", b"\x00\x00pw", b"a\x00b\x00c\x00d"])
def test_parse_plain_response_malformed_raises(payload: bytes) -> None:
    with pytest.raises(SaslError, match="PLAIN response"):
        parse_plain_response(payload)


def test_write_sasl_message_header_then_payload() -> None:
    out = Duplex(b"")
    write_sasl_message(out, SaslStatus.COMPLETE)
    write_sasl_message(out, SaslStatus.BAD, b"no")
    assert bytes(out.written) == b"\x05\x00\x00\x00\x00" + b"\x03\x00\x00\x00\x02no"
    assert read_sasl_message(Duplex(b"\x02\x00\x00\x00\x03abc")) == (SaslStatus.OK, b"abc")


def test_read_sasl_message_bad_status_raises() -> None:
    with pytest.raises(SaslError, match="status byte 9"):
        read_sasl_message(Duplex(b"\x09\x00\x00\x00\x00"))


@pytest.mark.parametrize("response_status", [SaslStatus.OK, SaslStatus.COMPLETE])
def test_open_plain_negotiation_answers_complete(response_status: SaslStatus) -> None:
    # PyHive sends its PLAIN response under OK, Java's client under COMPLETE.
    wire = Duplex(message(SaslStatus.START, b"PLAIN") + message(response_status, b"\x00test\x00x"))
    transport = SaslServerTransport(wire)
    transport.open()
    assert transport.user == "test"
    assert bytes(wire.written) == message(SaslStatus.COMPLETE, b"")


def test_open_unsupported_mechanism_answers_bad() -> None:
    wire = Duplex(message(SaslStatus.START, b"GSSAPI"))
    with pytest.raises(SaslError, match="Unsupported SASL mechanism 'GSSAPI'"):
        SaslServerTransport(wire).open()
    assert wire.written[0] == SaslStatus.BAD
    assert b"PLAIN" in wire.written


def test_open_refused_credentials_answers_bad() -> None:
    wire = Duplex(message(SaslStatus.START, b"PLAIN") + message(SaslStatus.OK, b"\x00eve\x00pw"))
    transport = SaslServerTransport(wire, authenticate=lambda c: c.user != "eve")
    with pytest.raises(SaslError, match="Authentication failed for user 'eve'"):
        transport.open()
    assert wire.written[0] == SaslStatus.BAD


def test_open_without_start_answers_error() -> None:
    wire = Duplex(message(SaslStatus.OK, b"\x00a\x00b"))
    with pytest.raises(SaslError, match="Expected a SASL START"):
        SaslServerTransport(wire).open()
    assert wire.written[0] == SaslStatus.ERROR


def test_frames_after_negotiation_are_length_prefixed() -> None:
    frame = b"\x00\x00\x00\x05hello"
    wire = Duplex(message(SaslStatus.START, b"PLAIN") + message(SaslStatus.OK, b"\x00u\x00p") + frame)
    transport = SaslServerTransport(wire)
    transport.open()
    assert transport.read(5) == b"hello"
    del wire.written[:]
    transport.write(b"abc")
    transport.flush()
    assert bytes(wire.written) == b"\x00\x00\x00\x03abc"


def test_thrift_sasl_client_negotiates_and_exchanges_frames() -> None:
    """PyHive's own client stack (thrift_sasl + pure-sasl) against the server end."""
    import thrift_sasl
    from pyhive.hive import get_installed_sasl

    server_sock, client_sock = socket.socketpair()
    result: dict[str, object] = {}

    def serve() -> None:
        tsock = TSocket()
        tsock.setHandle(server_sock)
        transport = SaslServerTransport(tsock)
        transport.open()
        result["user"] = transport.user
        result["data"] = transport.read(4)
        transport.write(b"pong")
        transport.flush()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        tsock = TSocket()
        tsock.setHandle(client_sock)
        client = thrift_sasl.TSaslClientTransport(
            lambda: get_installed_sasl(host="127.0.0.1", sasl_auth="PLAIN", username="alice", password="x"),
            "PLAIN", tsock)
        client.open()
        client.write(b"ping")
        client.flush()
        assert client.read(4) == b"pong"
    finally:
        thread.join(10)
        server_sock.close()
        client_sock.close()
    assert result == {"user": "alice", "data": b"ping"}
