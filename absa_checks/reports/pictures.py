"""Pictures a release manager would rather look at than read (matplotlib, PNG bytes).

Built from the JSON report's `sources` section, so the same pictures can be drawn for any report.
"""

from __future__ import annotations

import io
import re
from typing import Any

K_LABEL = re.compile(r"^adddiff\(k=(\d+)\)$")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    return plt


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=100)
    _pyplot().close(figure)
    return buffer.getvalue()


def _rows(sources: dict[str, Any]) -> list[tuple[str, str, dict]]:
    return [(source, strategy, s) for source, data in sources.items()
            for strategy, s in data["strategies"].items() if not K_LABEL.match(strategy)]


def accuracy_chart(sources: dict[str, Any]) -> bytes | None:
    """Accuracy on the originals vs on the variants, per source and strategy."""
    rows = [r for r in _rows(sources) if r[2]["variant_accuracy"]["n"]]
    if not rows:
        return None
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(max(6, 0.9 * len(rows) + 2), 4))
    x = range(len(rows))
    axis.bar([i - 0.2 for i in x], [100 * r[2]["original_accuracy"]["value"] for r in rows], 0.4,
             label="originals", color="#4c78a8")
    axis.bar([i + 0.2 for i in x], [100 * r[2]["variant_accuracy"]["value"] for r in rows], 0.4,
             label="variants", color="#f58518")
    axis.set_xticks(list(x), [f"{s}\n{st}" for s, st, _ in rows], fontsize=8)
    axis.set_ylabel("accuracy (%)")
    axis.set_ylim(0, 100)
    axis.set_title("Accuracy on originals vs variants")
    axis.legend()
    return _png(figure)


def fail_rate_chart(sources: dict[str, Any]) -> bytes | None:
    """Each strategy's fail rate with its 95% interval."""
    rows = [r for r in _rows(sources) if r[2]["fail_rate"]["n"]]
    if not rows:
        return None
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.5))
    values = [100 * r[2]["fail_rate"]["value"] for r in rows]
    # clamped at 0: a zero-width side can come out as -1e-14 after the percent scaling, which matplotlib refuses
    low = [max(0.0, v - 100 * r[2]["fail_rate"]["ci95"][0]) for v, r in zip(values, rows)]
    high = [max(0.0, 100 * r[2]["fail_rate"]["ci95"][1] - v) for v, r in zip(values, rows)]
    y = list(range(len(rows)))
    axis.barh(y, values, xerr=[low, high], color="#e45756", capsize=3)
    axis.set_yticks(y, [f"{s} / {st}" for s, st, _ in rows], fontsize=8)
    axis.invert_yaxis()
    axis.set_xlabel("fail rate (%), 95% interval")
    axis.set_xlim(0, 100)
    axis.set_title("Fail rate per strategy")
    return _png(figure)


def adddiff_k_chart(sources: dict[str, Any]) -> bytes | None:
    """Fail rate as k contrary aspects are appended (the ARTS paper's Figure 1)."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 4))
    drawn = False
    for source, data in sources.items():
        points = sorted((int(m.group(1)), s["fail_rate"]) for strategy, s in data["strategies"].items()
                        if (m := K_LABEL.match(strategy)) and s["fail_rate"]["n"])
        if len(points) < 2:
            continue
        ks = [k for k, _ in points]
        axis.plot(ks, [100 * r["value"] for _, r in points], marker="o", label=source)
        axis.fill_between(ks, [100 * r["ci95"][0] for _, r in points], [100 * r["ci95"][1] for _, r in points],
                          alpha=0.15)
        drawn = True
    if not drawn:
        _pyplot().close(figure)
        return None
    axis.set_xlabel("k (aspects of the opposite sentiment appended)")
    axis.set_ylabel("fail rate (%)")
    axis.set_title("ADDDIFF(k): invariance as contrary aspects pile up")
    axis.legend(fontsize=8)
    return _png(figure)


def all_pictures(sources: dict[str, Any]) -> dict[str, bytes]:
    """name -> PNG for every picture the data supports."""
    made = {"accuracy": accuracy_chart(sources), "fail-rates": fail_rate_chart(sources),
            "adddiff-k": adddiff_k_chart(sources)}
    return {name: png for name, png in made.items() if png}
