"""Why a run stopped early, in words the verdict can carry ("the run stopped early (...)"): a signal, or a failure
that pytest's -x / --maxfail or stepwise (--sw) stops at. Pure: the plugin passes what pytest left behind.

pytest tells them apart only by text: -x and --maxfail set `session.shouldfail` ("stopping after N failures"),
stepwise sets `session.shouldstop` (and pytest raises Interrupted, exit 2); under pytest-xdist both reach the
controller as an Interrupted carrying that text, while Ctrl-C is a KeyboardInterrupt without one.
"""

from __future__ import annotations

from dataclasses import dataclass

SIGNAL = "interrupted: Ctrl-C or SIGTERM"
STEPWISE = "Test failed, continuing from this test next run"  # pytest's stepwise plugin, as it words it
MAXFAIL = "stopping after "  # pytest's and pytest-xdist's -x / --maxfail


@dataclass(frozen=True)
class Stop:
    why: str          # shown in the verdict, the JSON report's `stopped` and the Markdown's "Partial run"
    at_failure: bool  # stopped by a failure (-x, --maxfail, --sw), not by a signal: exit 1 like any failed run


def why_stopped(interrupt: str | None, shouldstop: object, shouldfail: object, stepwise: bool,
                maxfail: int) -> Stop | None:
    """Why the run stopped early, or None when it did not. `interrupt`: the text of the KeyboardInterrupt (or
    pytest.exit) that ended it, None when none did; `shouldstop` / `shouldfail`: the session's; `stepwise`:
    --sw or --sw-skip given; `maxfail`: pytest's --maxfail (1 for -x)."""
    reason = str(shouldfail or shouldstop or interrupt or "")
    if stepwise and reason.startswith(STEPWISE):
        return Stop("--sw: pytest's stepwise stopped at the first failure; the next --sw run starts there", True)
    if reason.startswith(MAXFAIL):
        if maxfail == 1:
            return Stop("-x or --maxfail 1: stopped at the first failure", True)
        return Stop(f"--maxfail {maxfail}: stopped after {maxfail} failures", True)
    if interrupt is None and not reason:
        return None
    if not reason or reason == "SIGTERM" or reason.endswith("received keyboard-interrupt"):
        return Stop(SIGNAL, False)
    return Stop(f"stopped: {reason}", False)  # another plugin's shouldstop, or pytest.exit("...")
