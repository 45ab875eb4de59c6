"""Run and qrels frames stored in Parquet (as :func:`pdireval.write_run` and
:func:`pdireval.write_qrels` write them), read and validated like frames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from pdireval.core.schema import canonical_qrels, canonical_run
from pdireval.errors import SchemaError
from pdireval.io.files import PARQUET_SUFFIXES, file_system_name, folder_error


def is_parquet(path) -> bool:
    """Whether ``path`` names a Parquet file (by its suffix)."""
    return str(path).endswith(PARQUET_SUFFIXES)


def read_parquet(
    path, kind: str, *, system: str = "tag", row_group: int | None = None, name: str | None = None
) -> pd.DataFrame:
    """A run or qrels frame stored in Parquet (as :func:`write_run` / :func:`write_qrels`
    write it, or any frame with the canonical columns), validated; ``row_group`` reads one
    row group only (pdireval.dask reads a file row group by row group)."""
    import pyarrow.parquet as pq

    path = Path(path)
    if path.is_dir():
        raise folder_error(path, kind)
    try:
        file = pq.ParquetFile(path)
        table = file.read() if row_group is None else file.read_row_group(row_group)
    except FileNotFoundError:
        raise SchemaError(f"{path}: no such {kind} file.") from None
    except (OSError, pa.ArrowException) as exc:
        raise SchemaError(
            f"{path}: not a readable Parquet file ({exc}). Write it with pandas' "
            "to_parquet or pdireval's write_run / write_qrels."
        ) from None
    frame = table.to_pandas()
    try:
        if kind == "qrels":
            return canonical_qrels(frame)
        if system == "filename":
            frame["system"] = name if name is not None else file_system_name(path)
        return canonical_run(frame)
    except SchemaError as exc:
        raise SchemaError(f"{path}: {exc}", failure_cases=exc.failure_cases) from None
