"""The lab's saved state (pickled after every step so another process can resume the run) leaves
out the safetensors index it built for a read, and a restored lab reads the same bytes again."""

from __future__ import annotations

import pickle
from pathlib import Path

from tools.lab.family import draw_variant, family_paths
from tools.lab.target import LabTarget

INDEX = "/model.safetensors.index.json"


def test_a_read_index_is_not_saved_and_reads_the_same_after_restore(tmp_path: Path) -> None:
    family = next(p for p in family_paths() if p.stem == "glm5-nan-decode")  # a MoE: a large index
    lab = LabTarget(draw_variant(family, 3), seed=3)
    model_dir = lab.scenario.models[0].path.rstrip("/")
    before = len(pickle.dumps(lab))
    index = lab.read_file(model_dir + INDEX, max_bytes=1 << 26)
    assert len(index) > 1_000_000
    lab.save_state(tmp_path / "lab.pickle")
    assert (tmp_path / "lab.pickle").stat().st_size < before + 100_000
    restored = LabTarget.restore(tmp_path / "lab.pickle")
    assert restored.read_file(model_dir + INDEX, max_bytes=1 << 26) == index
