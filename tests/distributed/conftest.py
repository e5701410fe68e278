"""Fixtures of the Distributed chapter: clusters of real processes, always cleaned up."""

import pytest
from local_cluster import LocalCluster


@pytest.fixture(scope="module")
def cluster():
    """One ps and two workers, each an OS process on 127.0.0.1, for the whole module."""
    local = LocalCluster({"ps": 1, "worker": 2})
    try:
        yield local.start()
    finally:
        local.close()
