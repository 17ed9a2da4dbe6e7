"""Parquet (through pyarrow): read by record batches, messages numbering the rows from 1; written through pandas,
the table held whole."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pandas as pd

from kpqa.errors import InputError
from kpqa.formats.base import Chunk, Format, Writer, register


def read(path: Path, chunk_rows: int) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_rows`` rows, one record batch each."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=min(chunk_rows, 1 << 30))
        done = 0
        for batch in batches:
            frame = batch.to_pandas()
            yield frame, range(done + 1, done + len(frame) + 1)
            done += len(frame)
    except (pa.ArrowException, OSError) as e:
        raise InputError(f"not a readable Parquet file: {str(e).splitlines()[0]}", file=str(path)) from None
    if not done:
        raise InputError("no data rows", file=str(path))


def count(path: Path) -> int:
    """The number of rows its metadata gives."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def finish(staged: str, out: str) -> None:
    """The staged JSON lines as a Parquet file."""
    frame = pd.read_json(staged, lines=True, dtype=False) if os.path.getsize(staged) else pd.DataFrame()
    frame.to_parquet(out, index=False)


PARQUET = register(Format("parquet", (".parquet",), read, count, Writer(finish=finish), rank=50))
