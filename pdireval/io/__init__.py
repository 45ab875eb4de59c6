"""Readers and writers for TREC run / qrels files, Parquet and SVMlight (LETOR) files, and
the other inputs users pass as runs or qrels.

=================  =====================================================================
module             holds
=================  =====================================================================
``files``          path checks, the streaming text check (UTF-8, non-ASCII whitespace,
                   gzip size), the run files of a folder and their ``system`` names
``trec``           TREC text read into frames, with the diagnoser of malformed lines
``parquet``        run and qrels frames stored in Parquet
``readers``        :func:`read_run`, :func:`read_qrels`
``writers``        :func:`write_run`, :func:`write_qrels`
``svmlight``       :func:`read_svmlight`
``objects``        :func:`as_frame`: paths, pytrec_eval dicts and records become frames
``scores``         :func:`read_scores`, :func:`write_scores`: other tools' per-query numbers
``spreadsheets``   :func:`excel_safe`: OWASP's advice against CSV (formula) injection
``score_formats``  the format readers of :func:`read_scores` and the value readers they share
``score_sniff``    which format a scores file is in, told from its content
=================  =====================================================================

Readers parse with pyarrow's CSV reader or pandas' C parser (no Python loop per line on a
well-formed file). A malformed line raises a :class:`~pdireval.errors.SchemaError` that
names the file and the 1-based line number, says what is wrong and shows the expected
format; only then is the file scanned line by line to find the culprit.
"""

from __future__ import annotations

from pdireval.io.files import MAX_DECOMPRESSED_BYTES as MAX_DECOMPRESSED_BYTES
from pdireval.io.files import PARQUET_SUFFIXES as PARQUET_SUFFIXES
from pdireval.io.files import file_system_names as file_system_names
from pdireval.io.objects import as_frame as as_frame
from pdireval.io.readers import read_qrels, read_run
from pdireval.io.scores import read_scores, write_scores
from pdireval.io.svmlight import MAX_FEATURE_CELLS as MAX_FEATURE_CELLS
from pdireval.io.svmlight import read_svmlight
from pdireval.io.trec import MAX_WHOLE as MAX_WHOLE
from pdireval.io.trec import QRELS_FORMAT as QRELS_FORMAT
from pdireval.io.trec import RUN_FORMAT as RUN_FORMAT
from pdireval.io.writers import write_qrels, write_run

# The public functions; the other names above are re-exported for pdireval's own modules. The
# limits MAX_DECOMPRESSED_BYTES and MAX_FEATURE_CELLS are read where they are defined
# (pdireval.io.files, pdireval.io.svmlight): raise them there.
__all__ = [
    "read_run",
    "read_qrels",
    "read_svmlight",
    "read_scores",
    "write_run",
    "write_qrels",
    "write_scores",
]
