"""RAG answers judged by nuggets and citations (issue 34).

Three tidy frames, validated like runs and qrels:

- **nuggets** ``query, nugget, importance[, text, group, rule]``: the atomic facts a good answer
  holds; ``importance`` is ``'vital'`` / ``'okay'`` or a number (a weight); sub-nuggets share a
  ``group`` whose ``rule`` (``'and'`` / ``'or'``) combines their labels;
- **assignments** ``system, query, nugget, label[, judge]``: whether a system's answer supports
  a nugget (``'support'`` / ``'partial_support'`` / ``'not_support'``, or 1 / 0.5 / 0);
- **support** ``system, query, sentence, doc, label[, judge]``: whether a cited document
  supports the answer sentence that cites it (``'full_support'`` / ``'partial_support'`` /
  ``'no_support'``, or 1 / 0.5 / 0; ``doc`` missing for an uncited sentence).

``pdireval.rag.frames`` validates them, ``pdireval.rag.nuggets`` and ``pdireval.rag.support``
score them into a scores frame ``system, query, measure, value`` (plus ``judge``) that every
meta-evaluation of pdireval accepts; ``pdireval.rag.file_readers``, ``file_scores`` and
``file_writers`` read and write the producing tools' files (nuggetizer, TREC RAG 2024/25,
AutoJudge NuggetBank, open-rag-eval).
"""
