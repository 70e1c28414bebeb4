"""Reading a benchmark client's progress from its output in whatever pieces it arrives."""

from __future__ import annotations

from tools.output import CappedBuffer
from tools.sglang.bench_progress import LevelProgress, ProgressReader, parse_progress
from tools.ssh.streams import Marker

# bench_serving's tqdm bar as it reaches a pipe: redrawn with carriage returns, one newline at the end
BAR = (
    "\r  0%|          | 0/64 [00:00<?, ?it/s]"
    "\r  2%|▏         | 1/64 [00:02<02:31,  2.40s/it]"
    "\r 50%|█████     | 32/64 [00:09<00:06,  5.12it/s]"
    "\r 50%|█████     | 32/64 [00:09<00:06,  5.12it/s]"
    "\r100%|██████████| 64/64 [00:15<00:00,  4.27it/s]\n"
)


def _read(text: str, size: int) -> list[LevelProgress]:
    heard: list[LevelProgress] = []
    reader = ProgressReader(256, heard.append)
    for i in range(0, len(text), size):  # the targets decode incrementally: pieces are whole characters
        reader.feed(text[i : i + size])
    return heard


def test_the_bar_gives_requests_done_and_tqdms_running_rate_however_it_is_cut() -> None:
    for size in (1, 7, 40, len(BAR)):
        heard = _read(BAR, size)
        assert [p.done for p in heard] == [0, 1, 32, 64], size  # a redraw without progress says nothing
        assert heard[1].tok_s is not None and round(heard[1].tok_s, 1) == round(256 / 2.40, 1)  # s/it: slow
        assert heard[2].line() == "32/64 requests, 1,311 tok/s so far"  # 5.12 requests/s of 256 tokens
        assert heard[3].elapsed_s == 15.0


def test_the_load_generators_lines_give_exact_tokens() -> None:
    found = parse_progress("progress: 9/16 requests, 2.5 s, 360 output tokens", 40)
    assert found == LevelProgress(9, 16, 2.5, 360) and found.line() == "9/16 requests, 144 tok/s so far"
    assert parse_progress("Starting warmup with 1 sequences...", 40) is None


def test_the_ssh_framing_marker_is_found_across_any_cut_and_output_is_not_held_back() -> None:
    token = b"__oa0123456789abcdef01234567"
    stream = b"line one\nline two __oa not ours\n" + token + b"E 0 \n"
    for cut in range(1, len(stream)):
        buffer = CappedBuffer(1 << 16)
        marker = Marker(token, buffer, trailer_line=True)
        marker.feed(stream[:cut])
        marker.feed(stream[cut:])
        assert marker.complete and buffer.capture().text == "line one\nline two __oa not ours\n", cut
    buffer = CappedBuffer(1 << 16)
    Marker(token, buffer, trailer_line=True).feed(b"first line\n")
    assert buffer.capture().text == "first line\n"  # nothing that could begin the marker: passed on now
