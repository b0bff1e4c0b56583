"""Raw Bolt over a socket, for the abuse tests that a driver would not let
us write: the handshake, chunks without an end marker, HELLO and LOGON
encoded by hand (a map of strings is all they need)."""

import socket
import struct

MAGIC = b"\x60\x60\xB0\x17"
# Bolt 5.4 down to 5.0, then 4.4: what the Python driver offers too.
OFFER = b"\x00\x04\x04\x05" + b"\x00\x00\x04\x04" + b"\x00" * 8


def connect(port, source=None, timeout=10.0, rcvbuf=None):
    """A socket that has finished the version handshake (Bolt 5.x);
    `rcvbuf` bounds what the kernel buffers for a client that stops reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if source is not None:
        sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(MAGIC + OFFER)
    version = recv_exact(sock, 4)
    assert version[3] == 5, f"unexpected version {version!r}"
    return sock


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        part = sock.recv(n - len(data))
        if not part:
            raise ConnectionError("closed")
        data += part
    return data


def _string(s):
    b = s.encode()
    if len(b) < 16:
        return bytes([0x80 + len(b)]) + b
    if len(b) < 256:
        return b"\xD0" + bytes([len(b)]) + b
    return b"\xD1" + struct.pack(">H", len(b)) + b


def _map(fields):
    out = bytes([0xA0 + len(fields)])
    for key, value in fields.items():
        out += _string(key) + _string(value)
    return out


def message(tag, fields):
    """One message struct with a single map field, chunked and terminated."""
    body = bytes([0xB1, tag]) + _map(fields)
    return struct.pack(">H", len(body)) + body + b"\x00\x00"


def hello():
    return message(0x01, {"user_agent": "hostile/1.0"})


def logon(user, password):
    return message(0x6A, {"scheme": "basic", "principal": user, "credentials": password})


def read_message(sock):
    """The next message body; ConnectionError once the server closed."""
    body = b""
    while True:
        (size,) = struct.unpack(">H", recv_exact(sock, 2))
        if size == 0:
            if body:
                return body
            continue
        body += recv_exact(sock, size)


def is_closed(sock, timeout=10.0):
    """Reads (and drops) whatever the server still sends; True once it has
    closed the connection within `timeout`."""
    sock.settimeout(timeout)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def stream_unterminated(sock, total):
    """Sends up to `total` bytes as full 65,535-byte chunks with no end
    marker; returns the bytes sent before the server stopped taking them."""
    chunk = b"\xFF\xFF" + b"\xB1" * 65535
    sent = 0
    try:
        while sent < total:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    return sent


def drain_until_closed(sock, timeout=10.0):
    """Everything the server sends until it closes (or `timeout`)."""
    sock.settimeout(timeout)
    data = b""
    try:
        while True:
            part = sock.recv(65536)
            if not part:
                return data
            data += part
    except (ConnectionResetError, BrokenPipeError, socket.timeout):
        return data


def _chunked(body):
    return struct.pack(">H", len(body)) + body + b"\x00\x00"


def run(query):
    """RUN query {} {} (auto-commit, no parameters)."""
    return _chunked(b"\xB3\x10" + _string(query) + b"\xA0\xA0")


def pull(n=-1):
    """PULL {n}; n between -16 and 127."""
    return _chunked(b"\xB1\x3F\xA1" + _string("n") + struct.pack(">b", n))


def reset():
    return _chunked(b"\xB0\x0F")


SUCCESS, RECORD, IGNORED, FAILURE = 0x70, 0x71, 0x7E, 0x7F


def tag(body):
    """The message tag of a reply body."""
    return body[1]


def login(port, rcvbuf=None):
    """A socket past HELLO and LOGON (any credentials: no users)."""
    sock = connect(port, rcvbuf=rcvbuf)
    sock.sendall(hello() + logon("neo4j", "any"))
    for _ in range(2):
        assert tag(read_message(sock)) == SUCCESS
    return sock
