from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers import Bridge

from labeld_client.pytest_plugin import LabeldInstance


@pytest.fixture(params=["sync", "async"])
def kit(request: pytest.FixtureRequest, labeld: LabeldInstance) -> Iterator[Any]:
    """The Client, or the AsyncClient through a Bridge: the same scenario runs on both."""
    if request.param == "sync":
        yield labeld.client()
    else:
        bridge = Bridge(labeld.async_client)
        try:
            yield bridge
        finally:
            bridge.close()
