"""One workspace, server and waiting lab run per test module: the lab run is the slow part."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.server import Server, Workspace, make_workspace, start_server, stop_drivers


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    workspace = make_workspace(Path(tmp_path_factory.mktemp("web")))
    yield workspace
    stop_drivers(workspace)


@pytest.fixture(scope="module")
def server(ws: Workspace) -> Iterator[Server]:
    srv = start_server(ws)
    yield srv
    srv.stop()
