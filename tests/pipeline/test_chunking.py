"""Actor memory follows the chunk, so the default chunk never grows with the population."""

from pipeline.evaluation.core import MAX_AUTO_CHUNK, auto_chunk_size


def test_automatic_chunks_are_spread_over_workers_and_bounded():
    assert auto_chunk_size(10, 2) == 5
    assert auto_chunk_size(1, 4) == 1
    assert auto_chunk_size(0, 2) == 1
    assert auto_chunk_size(1_000_000, 2) == MAX_AUTO_CHUNK
