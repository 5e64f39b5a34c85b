"""``mjcore web``: the web analyser's page and JSON API (the ``web`` extra)."""
from __future__ import annotations

import sys

import click

from .common import bearer_token, need_extra

SECONDS = click.FloatRange(0, min_open=True)


@click.command("web")
@click.option("--host", default="127.0.0.1", show_default=True, envvar="MJCORE_WEB_HOST",
              help="Address to listen on (loopback unless you say otherwise).")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535),
              envvar="MJCORE_WEB_PORT", help="Port (0: a free one, printed).")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A file whose first line is the bearer token the API then requires "
                   "(or MJCORE_TOKEN).")
@click.option("--max-in-flight", default=8, show_default=True, type=click.IntRange(1),
              help="Calls computed at once; more answer 503 with Retry-After at once.")
@click.option("--max-in-flight-per-host", default=2, show_default=True,
              type=click.IntRange(1), help="Calls of one client host computed at once; more "
              "answer 429 with Retry-After at once.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1),
              help="Threads computing the calls.")
@click.option("--max-body", default=64 * 1024, show_default=True, type=click.IntRange(256),
              help="Bytes of a request body (a review's record: --max-review-body).")
@click.option("--max-review-body", default=4 * 1024 * 1024, show_default=True,
              type=click.IntRange(1024), help="Bytes of a review request.")
@click.option("--ev-seconds", default=5.0, show_default=True, type=SECONDS,
              help="Most seconds of one expected-value search.")
@click.option("--review-seconds", default=60.0, show_default=True, type=SECONDS,
              help="Most seconds of one review.")
@click.option("--body-timeout", default=10.0, show_default=True, type=SECONDS,
              help="Seconds a client may take to send a request body (then 408).")
@click.option("--header-timeout", default=10.0, show_default=True, type=SECONDS,
              help="Seconds a client may take to send a request head (then closed).")
@click.option("--max-connections", default=256, show_default=True, type=click.IntRange(1),
              help="Open connections; past it requests answer 503.")
def web(host: str, port: int, token_file: str | None, max_in_flight: int,
        max_in_flight_per_host: int, workers: int,
        max_body: int, max_review_body: int, ev_seconds: float, review_seconds: float,
        body_timeout: float, header_timeout: float, max_connections: int) -> None:
    """Serve the web analyser (hand analysis, expected values, scoring, game review) and its
    JSON API (/api/v1, schema at /api/v1/openapi.json). Prints the address when ready."""
    need_extra("web", "mjcore web", "starlette", "uvicorn", "google.protobuf", "grpc")
    import threading

    from ..web.app import WebConfig, server, wait_started

    token = bearer_token(token_file)
    config = WebConfig(host=host, port=port, token=token, max_in_flight=max_in_flight,
                       max_in_flight_per_host=max_in_flight_per_host,
                       workers=workers, max_body=max_body, max_review_body=max_review_body,
                       ev_seconds=ev_seconds, review_seconds=review_seconds,
                       body_seconds=body_timeout, header_seconds=header_timeout,
                       max_connections=max_connections)
    srv = server(config)

    def announce() -> None:
        try:
            bound = wait_started(srv, 30.0)
        except RuntimeError:
            return
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"mjcore web: http://{shown}:{bound}/ (API /api/v1, "
                   f"{'token required' if token else 'no token'})")
        sys.stdout.flush()

    import signal

    def stopped(_sig: int, _frame: object) -> None:
        # uvicorn stops gracefully on SIGTERM/SIGINT, then raises the signal again for the
        # handler it found: this one, so a stop exits 0
        sys.exit(0)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stopped)
    threading.Thread(target=announce, daemon=True).start()
    srv.run()
    if not srv.started:
        raise click.ClickException(f"could not listen on {host}:{port} (in use, or not an "
                                   "address of this machine?)")
