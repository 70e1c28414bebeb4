"""A report is rendered as Markdown with its tables, and nothing in it becomes markup: a report
quotes host output, which anyone who can write a log line on the host controls."""

from __future__ import annotations

from agent.web.thread import markdown


def test_tables_render_and_raw_html_stays_text() -> None:
    html = markdown(
        "| metric | goal |\n|---|---|\n| tok/s | 1,000 |\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>"
    )
    assert "<table>" in html and "<td>tok/s</td>" in html
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
