#!/usr/bin/env python3
"""mongo_ping.py HOST PORT [COMMAND]: send one OP_MSG command ({COMMAND: 1, $db: "admin"},
default ping) and exit 0 when the reply has ok: 1. Stdlib only; used by check-images.sh
because no mongo shell is obtainable here."""
import socket
import struct
import sys


def bson_command(name: str) -> bytes:
    db = b"admin\x00"
    elements = (b"\x10" + name.encode() + b"\x00" + struct.pack("<i", 1)
                + b"\x02$db\x00" + struct.pack("<i", len(db)) + db)
    return struct.pack("<i", len(elements) + 5) + elements + b"\x00"


def main() -> int:
    host, port = sys.argv[1], int(sys.argv[2])
    command = sys.argv[3] if len(sys.argv) > 3 else "ping"
    body = struct.pack("<I", 0) + b"\x00" + bson_command(command)
    message = struct.pack("<iiii", 16 + len(body), 1, 0, 2013) + body
    try:
        with socket.create_connection((host, port), timeout=2) as s:
            s.sendall(message)
            reply = b""
            while len(reply) < 4 or len(reply) < struct.unpack("<i", reply[:4])[0]:
                chunk = s.recv(65536)
                if not chunk:
                    return 1
                reply += chunk
    except OSError:
        return 1
    # ok: 1.0 is encoded as a double element named "ok".
    return 0 if b"\x01ok\x00" + struct.pack("<d", 1.0) in reply else 1


if __name__ == "__main__":
    sys.exit(main())
