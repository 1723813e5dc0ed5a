"""Progress while a model predicts: one line per checkpoint (inputs done / total, inputs per second, ETA).

A Predictor reports to a sink. In one process the sink writes to the terminal, past pytest's output
capture, so the line never lands in a test's captured output. Under pytest-xdist each worker writes its
counts to a small JSON file and the controller, which owns the terminal, shows their sum.

On a terminal (and without -q) the line is rewritten in place; otherwise (CI logs, -q) a plain line is
written every PLAIN_INTERVAL seconds of a long prediction, and a last line once it is done.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

PLAIN_INTERVAL = 10.0   # seconds between lines in a log (non-TTY or -q)
LIVE_INTERVAL = 0.2     # seconds between rewrites of a live line
PREFIX = "absa-checks: "


@dataclass(frozen=True)
class Progress:
    """One checkpoint's prediction so far (summed over processes on the xdist controller)."""

    model: str
    done: int
    total: int
    seconds: float
    finished: bool = False


def combine(parts: list[Progress]) -> Progress:
    """Several processes' progress on one checkpoint as one: counts add up, the slowest clock counts."""
    return Progress(parts[0].model, sum(p.done for p in parts), sum(p.total for p in parts),
                    max(p.seconds for p in parts), all(p.finished for p in parts))


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


def progress_line(progress: Progress) -> str:
    """`bert-pt: 12,288/22,870 inputs, 96/s, ETA 1m 50s`, or the closing line once finished."""
    rate = progress.done / progress.seconds if progress.seconds > 0 else 0.0
    if progress.finished:
        return (f"{PREFIX}{progress.model}: {progress.done:,} inputs predicted in {duration(progress.seconds)}"
                + (f" ({rate:,.0f}/s)" if rate else ""))
    eta = f"ETA {duration((progress.total - progress.done) / rate)}" if rate else "ETA unknown"
    return f"{PREFIX}{progress.model}: {progress.done:,}/{progress.total:,} inputs, {rate:,.0f}/s, {eta}"


def loading_line(model: str, what: str) -> str:
    return f"{PREFIX}loading model '{model}' ({what})"


class Lines(Protocol):
    """Where the display writes: whole lines, a line rewritten in place, and the end of its block."""

    def write(self, text: str) -> None: ...

    def rewrite(self, text: str) -> bool:
        """False when someone else wrote on the line since (it is left alone, and nothing is written)."""

    def close(self) -> None: ...


class ProgressDisplay:
    """Decides what to write and when: a live line rewritten in place, or a plain line now and then."""

    def __init__(self, lines: Lines, live: bool, clock: Callable[[], float] = time.monotonic):
        self.lines = lines
        self.live = live
        self.clock = clock
        self._last: dict[str, float] = {}   # model -> when its line was last written
        self._shown: set[str] = set()       # models with a line written (a closing line is owed)

    def loading(self, model: str, what: str) -> None:
        self.lines.write(loading_line(model, what))
        if not self.live:  # on a terminal the progress line follows at once, in the same block
            self.lines.close()

    def show(self, progress: Progress) -> None:
        if progress.finished:
            self.finish(progress)
            return
        now = self.clock()
        last = self._last.get(progress.model)
        if last is None:
            self._last[progress.model] = now  # a log's first line comes one interval into the work
            if not self.live:
                return
        elif now - last < (LIVE_INTERVAL if self.live else PLAIN_INTERVAL):
            return
        self._last[progress.model] = now
        self._shown.add(progress.model)
        if self.live and self.lines.rewrite(progress_line(progress)):
            return
        # a log; or pytest wrote results under the live line (an xdist worker that had its answers): plain lines
        self.live = False
        self.lines.write(progress_line(progress))
        self.lines.close()

    def finish(self, progress: Progress) -> None:
        """The closing line, when a line was shown (a prediction shorter than the interval stays silent in a log)."""
        self._last.pop(progress.model, None)
        if progress.model not in self._shown and not self.live:
            return
        self._shown.discard(progress.model)
        if not (self.live and self.lines.rewrite(progress_line(progress))):
            self.lines.write(progress_line(progress))
        self.lines.close()


class TerminalLines:
    """Our lines on pytest's terminal, as a block of their own between pytest's: they start on a fresh
    line, and when they end pytest's file name (or -v test id) is written again for its next results."""

    def __init__(self, reporter) -> None:
        self.reporter = reporter
        self._open = False       # our block has started
        self._mid_line = False   # the cursor is at the end of our live line
        self._resume: object = None
        self._reports_seen = 0

    def write(self, text: str) -> None:
        fresh = self._mid_line or (not self._open and self.reporter._tw.width_of_current_line)
        self._start(break_line=False)
        # one write: on an xdist controller pytest writes result letters from another thread, and one
        # could land between a separate line break and our text
        self.reporter._tw.write(("\n" if fresh else "") + text + "\n")
        self._mid_line = False

    def rewrite(self, text: str) -> bool:
        if self._mid_line and self._reports() != self._reports_seen:
            # pytest wrote results after our line: they stay, and what we write next starts a line of its own
            self._open = False
            return False
        self._start()
        self.reporter.rewrite(text, erase=True)
        self._mid_line, self._reports_seen = True, self._reports()
        return True

    def _reports(self) -> int:
        return sum(len(reports) for reports in self.reporter.stats.values())

    def close(self) -> None:
        if not self._open:
            return
        if self._mid_line:
            self.reporter._tw.line()
        resume = self._resume
        if isinstance(resume, Path):  # pytest's file name, followed by its result letters
            self.reporter._tw.write(os.path.relpath(resume, self.reporter.startpath) + " ")
        elif isinstance(resume, str):  # -v: the test id, followed by its result word
            self.reporter._tw.write(resume)
        self._open = self._mid_line = False

    def _start(self, break_line: bool = True) -> None:
        if self._open:
            return
        self._resume = self.reporter.currentfspath
        if break_line and self.reporter._tw.width_of_current_line:
            self.reporter._tw.line()
        self._open = True


def display_for(config) -> ProgressDisplay | None:
    """A live line on a terminal; plain lines in a log or with -q; nothing with -qq."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    verbosity = config.option.verbose
    if reporter is None or verbosity <= -2:
        return None
    return ProgressDisplay(TerminalLines(reporter), live=bool(reporter.isatty) and verbosity >= 0)


class ProgressSink(Protocol):
    """What a Predictor tells about its work."""

    def loading(self, model: str, what: str) -> None: ...

    def update(self, progress: Progress) -> None: ...


class TerminalProgress:
    """In one process: write to pytest's terminal, with output capture suspended while writing."""

    def __init__(self, config) -> None:
        self.config = config
        self._display: ProgressDisplay | None = None
        self._made = False

    def _writer(self):
        if not self._made:
            self._display, self._made = display_for(self.config), True
        return self._display

    def _writing(self):
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        return capture.global_and_fixture_disabled() if capture is not None else nullcontext()

    def loading(self, model: str, what: str) -> None:
        display = self._writer()
        if display is not None:
            with self._writing():
                display.loading(model, what)

    def update(self, progress: Progress) -> None:
        display = self._writer()
        if display is not None:
            with self._writing():
                display.show(progress)


class FileProgress:
    """In an xdist worker: the counts go to <folder>/<worker>.json, for the controller to show."""

    def __init__(self, folder: Path, worker: str) -> None:
        self.path = Path(folder) / f"{worker}.json"
        self._state: dict[str, dict] = {}

    def loading(self, model: str, what: str) -> None:
        self._state.setdefault(model, {})["loading"] = what
        self._write()

    def update(self, progress: Progress) -> None:
        self._state.setdefault(progress.model, {}).update(asdict(progress))
        self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(self._state), encoding="utf-8")
        os.replace(partial, self.path)  # the controller never reads half a file


def read_folder(folder: Path) -> dict[str, list[dict]]:
    """model -> each worker's record, from the files FileProgress writes."""
    found: dict[str, list[dict]] = {}
    for file in sorted(Path(folder).glob("*.json")):
        try:
            state = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # replaced while being read: the next poll reads it
        for model, record in state.items():
            found.setdefault(model, []).append(record)
    return found


class ProgressWatcher:
    """On the xdist controller: a thread that polls the workers' files and shows each checkpoint's sum."""

    def __init__(self, folder: Path, display: ProgressDisplay, poll: float = LIVE_INTERVAL) -> None:
        self.folder = Path(folder)
        self.display = display
        self.poll = poll
        self._announced: set[str] = set()
        self._closed: dict[str, Progress] = {}  # model -> its last closing line
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="absa-checks-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            self.poll_once()
        self.poll_once()

    def poll_once(self) -> None:
        for model, records in read_folder(self.folder).items():
            what = next((r["loading"] for r in records if r.get("loading")), None)
            if what and model not in self._announced:
                self._announced.add(model)
                self.display.loading(model, what)
            counted = [Progress(**{k: r[k] for k in ("model", "done", "total", "seconds", "finished")})
                       for r in records if "done" in r]
            if not counted:
                continue
            progress = combine(counted)
            if self._closed.get(model) == progress:
                continue  # closed already, and no process has started more work on it since
            if progress.finished:
                self._closed[model] = progress
            self.display.show(progress)
