"""trec_eval itself, for the ``pdireval trec_eval`` command: its file readers, its measures
and its evaluation loop, transcribed from trec_eval's C source (Buckley, NIST; versions 9.0.8
and 10.0) and vectorised with numpy over the queries of one run.

Why a transcription next to :mod:`pdireval.measures`: the command must print what trec_eval
prints, byte for byte, including what is trec_eval's and nobody else's (``-nan`` where a
query is left without documents, fractional cut-offs read with ``atol``, ``relstring``, the
quirks of each version), and start quickly, as a C program does: this package imports numpy only,
never pandas. :func:`pdireval.evaluate` keeps pdireval's own definitions; the tests check the
two agree on every measure both have.

Modules: :mod:`~pdireval.trec.trec_files` (qrels, results, judgment-group qrels, preference and
z-score files, read as trec_eval reads them), :mod:`~pdireval.trec.trec_columns` (qrels and
results of the common shape read as numpy columns, no Python object per field: the fast
path), :mod:`~pdireval.trec.trec_kernels` (one function per trec_eval measure),
:mod:`~pdireval.trec.trec_gains` (the gain tables of the nDCG family, sorted as glibc's
``qsort`` sorts them),
:mod:`~pdireval.trec.trec_prefs` (the preference measures of ``-R prefs`` and
``-R qrels_prefs``), :mod:`~pdireval.trec.trec_engine` (measure selection, the per-query
loop, averages, printing).
"""
