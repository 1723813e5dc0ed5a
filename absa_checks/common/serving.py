"""Serving on 127.0.0.1 until Ctrl-C or SIGTERM: the one loop `absa-checks review` and `absa-checks serve-replay`
share (exit 0 on either signal; a port that cannot be listened on is one line naming --port and the fix)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from http.server import HTTPServer
from typing import IO, TypeVar

from absa_checks.common.errors import AbsaChecksError

HOST = "127.0.0.1"
Server = TypeVar("Server", bound=HTTPServer)


def serve_until_stopped(command: str, port: int, make: Callable[[], Server], started: Callable[[Server], str],
                        stopped: Callable[[Server], None], out: IO[str]) -> int:
    """`make()` the server, print `started(server)` (the one start line) to `out`, serve until Ctrl-C or SIGTERM,
    then `stopped(server)` (which closes it, under whatever lock the server's writes hold); both signals are
    ignored while it stops and restored afterwards."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop), signal.getsignal(signal.SIGINT)
    server: Server | None = None
    try:
        try:
            server = make()
        except OSError as err:
            raise AbsaChecksError(f"{command}: --port {port}: cannot listen on {HOST}:{port} "
                                  f"({err.strerror or err}); name another port, or 0 for a free one") from None
        print(started(server), file=out, flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if server is not None:
            stopped(server)
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1] if previous[1] is not None else signal.SIG_DFL)
    return 0
