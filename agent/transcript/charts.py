"""The audit view's pictures as inline SVG: no script, no external file, readable without a network.

- `throughput_chart`: one bar per attempt, its measured throughput, against a dashed goal line.
- `timeline_chart`: launches, readiness, failures, questions and replies along the run's clock.

Every drawn element carries its value in a `data-` attribute and a `<title>` (a tooltip), so a
reader can hover for the number and a test can check that the drawing matches the data.
Colours are SVG presentation attributes, not CSS, so the charts look the same in any page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from agent.transcript.audit_facts import AttemptRow, Mark

WIDTH = 720
BAR_HEIGHT = 240  # the plot area of the throughput chart
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 56

MARK_STYLE: dict[str, tuple[str, str, int]] = {
    # kind: (colour, row label, row index from the top)
    "launch": ("#1f5fa8", "launches", 0),
    "ready": ("#2e7d32", "ready", 1),
    "failed": ("#c62828", "failures", 2),
    "question": ("#e68a00", "questions", 3),
    "reply": ("#6a1b9a", "replies", 4),
}
ROW_GAP = 30


def _a(value: object) -> str:
    return escape(str(value), quote=True)


def _fmt_num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"


def nice_max(value: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten at or above `value` (the axis end)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for m in (1, 2, 5, 10):
        if m * power >= value:
            return float(m * power)
    return float(10 * power)


TIME_SPANS = (
    (60, 10),
    (120, 20),
    (300, 60),
    (600, 120),
    (900, 180),
    (1800, 300),
    (3600, 600),
    (7200, 1200),
    (14400, 3600),
    (28800, 3600),
    (43200, 7200),
    (86400, 14400),
)  # (axis length, tick every) in seconds: ticks land on whole minutes or hours


def time_axis(end_s: float) -> tuple[float, float]:
    """The axis length and tick step for a run that lasted `end_s` seconds."""
    for span, step in TIME_SPANS:
        if end_s <= span:
            return float(span), float(step)
    days = math.ceil(end_s / 86400)
    return float(days * 86400), float(max(days // 6, 1) * 14400)


def fmt_clock(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s" if s % 60 else f"{s // 60}m"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def throughput_chart(
    attempts: Sequence[AttemptRow], goal: float | None, *, metric: str = "aggregate", title: str
) -> str:
    """Bars of `aggregate_tps` (or `single_stream_tps`) per attempt; `goal` draws the line to beat.

    An attempt without a measurement gets an empty slot with its outcome, so a failed launch is
    seen as a gap, not left out.
    """
    values = [a.aggregate_tps if metric == "aggregate" else a.single_stream_tps for a in attempts]
    top = nice_max(max([v for v in values if v is not None] + [goal or 0.0, 1.0]) * 1.1)
    plot_w = WIDTH - LEFT - RIGHT
    height = TOP + BAR_HEIGHT + BOTTOM
    base = TOP + BAR_HEIGHT
    scale = BAR_HEIGHT / top
    out = [
        f'<svg class="audit-chart audit-throughput" data-metric="{_a(metric)}" '
        f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{_a(title)}" data-baseline="{base}" data-scale="{scale:.6f}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    for i in range(5):  # gridlines at fifths of the axis
        v = top * i / 4
        y = base - v * scale
        out.append(f'<line x1="{LEFT}" y1="{y:.2f}" x2="{WIDTH - RIGHT}" y2="{y:.2f}" stroke="#e3e3e3"/>')
        out.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.2f}" font-size="11" text-anchor="end" fill="#555">{_fmt_num(v)}</text>'
        )
    slot = plot_w / max(len(attempts), 1)
    bar_w = min(slot * 0.6, 80)
    for i, (attempt, value) in enumerate(zip(attempts, values, strict=True)):
        x = LEFT + slot * i + (slot - bar_w) / 2
        cx = x + bar_w / 2
        label = f"{attempt.id}: {attempt.change} -> {attempt.outcome}"
        if value is None:
            out.append(
                f'<g class="audit-bar audit-bar-none" data-attempt="{_a(attempt.id)}" data-value="">'
                f"<title>{escape(label)}: no measurement</title>"
                f'<rect x="{x:.2f}" y="{base - 2}" width="{bar_w:.2f}" height="2" fill="#bbb"/>'
                f'<text x="{cx:.2f}" y="{base - 8}" font-size="10" text-anchor="middle" fill="#777">'
                f"{escape(attempt.failure_class or 'no result')}</text></g>"
            )
        else:
            h = value * scale
            colour = "#1f5fa8" if goal is None else ("#2e7d32" if value >= goal else "#c62828")
            out.append(
                f'<g class="audit-bar" data-attempt="{_a(attempt.id)}" data-value="{value:g}">'
                f"<title>{escape(label)}: {_fmt_num(value)} tok/s</title>"
                f'<rect x="{x:.2f}" y="{base - h:.2f}" width="{bar_w:.2f}" height="{h:.2f}" fill="{colour}"/>'
                f'<text x="{cx:.2f}" y="{base - h - 4:.2f}" font-size="11" text-anchor="middle" fill="#222">'
                f"{_fmt_num(value)}</text></g>"
            )
        out.append(
            f'<text x="{cx:.2f}" y="{base + 16}" font-size="11" text-anchor="middle" fill="#222">'
            f"{escape(attempt.id)}</text>"
        )
    if goal is not None:
        y = base - goal * scale
        out.append(
            f'<g class="audit-goal" data-value="{goal:g}"><title>goal: {_fmt_num(goal)} tok/s</title>'
            f'<line x1="{LEFT}" y1="{y:.2f}" x2="{WIDTH - RIGHT}" y2="{y:.2f}" stroke="#222" '
            f'stroke-width="1.5" stroke-dasharray="6 4"/>'
            f'<text x="{WIDTH - RIGHT}" y="{y - 5:.2f}" font-size="11" text-anchor="end" fill="#222">'
            f"goal {_fmt_num(goal)}</text></g>"
        )
    out.append(f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="#444"/>')
    out.append(
        f'<text x="{LEFT + plot_w / 2:.2f}" y="{height - 12}" font-size="11" text-anchor="middle" fill="#555">'
        + (
            "attempt (bar: output tok/s; green meets the goal, red falls short)"
            if goal is not None
            else "attempt (bar: output tok/s; the goal sets no number for this)"
        )
        + "</text>"
    )
    out.append("</svg>")
    return "".join(out)


def timeline_chart(marks: Sequence[Mark], end_s: float, *, title: str, clock: str) -> str:
    """One row per kind of mark, time running left to right from the start of the run."""
    span, tick = time_axis(max([end_s] + [m.at_s for m in marks] + [1.0]))
    rows = len(MARK_STYLE)
    plot_w = WIDTH - LEFT - RIGHT - 36
    left = LEFT + 36  # room for the row names
    height = TOP + rows * ROW_GAP + BOTTOM
    scale = plot_w / span
    axis_y = TOP + rows * ROW_GAP
    out = [
        f'<svg class="audit-chart audit-timeline-chart" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{_a(title)}" '
        f'data-origin="{left}" data-scale="{scale:.6f}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    for colour, name, row in MARK_STYLE.values():
        y = TOP + row * ROW_GAP + ROW_GAP / 2
        out.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="#eee"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4}" font-size="11" text-anchor="end" fill="{colour}">{name}</text>')
    for i in range(int(span // tick) + 1):
        t = tick * i
        x = left + t * scale
        out.append(f'<line x1="{x:.2f}" y1="{TOP}" x2="{x:.2f}" y2="{axis_y}" stroke="#f0f0f0"/>')
        out.append(
            f'<text x="{x:.2f}" y="{axis_y + 16}" font-size="11" text-anchor="middle" fill="#555">{fmt_clock(t)}</text>'
        )
    launches = [m for m in marks if m.kind == "launch"]
    for launch in launches:  # the wait from each launch to the next ready/failed mark, as a band
        after = [m for m in marks if m.kind in ("ready", "failed") and m.seq > launch.seq]
        if after:
            end = after[0]
            x1, x2 = left + launch.at_s * scale, left + end.at_s * scale
            y1 = TOP + ROW_GAP / 2
            y2 = TOP + MARK_STYLE[end.kind][2] * ROW_GAP + ROW_GAP / 2
            out.append(
                f'<path d="M{x1:.2f},{y1} L{x2:.2f},{y2}" stroke="#999" stroke-dasharray="3 3" fill="none">'
                f"<title>{escape(launch.label)} to {escape(end.label)}: {fmt_clock(end.at_s - launch.at_s)}</title>"
                "</path>"
            )
    for m in marks:
        colour, _name, row = MARK_STYLE.get(m.kind, ("#444", m.kind, rows - 1))
        x = left + m.at_s * scale
        y = TOP + row * ROW_GAP + ROW_GAP / 2
        shape = (
            f'<rect x="{x - 6:.2f}" y="{y - 6}" width="12" height="12" transform="rotate(45 {x:.2f} {y})" '
            f'fill="{colour}"/>'
            if m.kind == "question"
            else f'<circle cx="{x:.2f}" cy="{y}" r="6" fill="{colour}"/>'
        )
        out.append(
            f'<g class="audit-mark audit-mark-{_a(m.kind)}" data-kind="{_a(m.kind)}" data-at="{m.at_s:.3f}" '
            f'data-x="{x:.2f}" data-seq="{m.seq}"><title>{escape(fmt_clock(m.at_s))} (step {m.step}, '
            f"seq {m.seq}): {escape(m.label)}</title>{shape}</g>"
        )
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="#444"/>')
    clock_words = "simulated lab clock" if clock == "simulated" else f"{clock} clock"
    out.append(
        f'<text x="{left + plot_w / 2:.2f}" y="{height - 12}" font-size="11" text-anchor="middle" fill="#555">'
        f"time since the run started ({escape(clock_words)})</text>"
    )
    out.append("</svg>")
    return "".join(out)
