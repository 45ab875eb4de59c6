"""``# ir_metadata`` headers of TREC run files (Breuer et al. 2022), kept and written back.

A run file may open with comment lines holding the run's metadata as YAML between
``# ir_metadata.start`` and ``# ir_metadata.end``, each line prefixed with ``# `` (legal in
trec_eval 10.0, which skips ``#`` lines)::

    # ir_metadata.start
    # tag: bm25
    # platform:
    #   software: ...
    # ir_metadata.end
    301 Q0 FBIS3-10082 1 12.3 bm25

:func:`read_ir_metadata` returns the blocks of a file's head (the comment and blank lines
before its first data line), the YAML text without the ``# `` prefixes; :func:`read_run`
keeps them in ``frame.attrs["ir_metadata"]`` as ``{system: text}``, and :func:`write_run`
writes them back before the lines of their system. The text is kept as written (pdireval
does not parse YAML).

References
----------
Breuer, T., Keller, J., & Schaer, P. (2022). ir_metadata: An Extensible Metadata Schema for
IR Experiments. SIGIR 2022.
"""

from __future__ import annotations

from pathlib import Path

from pdireval.io.files import open_text

__all__ = ["ATTRS_KEY", "START", "END", "read_ir_metadata", "metadata_lines", "assign_blocks"]

#: the key of ``DataFrame.attrs`` holding a run's metadata, ``{system: YAML text}``
ATTRS_KEY = "ir_metadata"
START = "# ir_metadata.start"
END = "# ir_metadata.end"


def read_ir_metadata(path: Path) -> list[str]:
    """The ir_metadata blocks at the head of a run file (before its first data line), in
    file order, each the YAML text with the ``# `` prefixes removed (``""`` for an empty
    block)."""
    blocks: list[str] = []
    current: list[str] | None = None
    with open_text(path) as fh:
        for line in fh:
            stripped = line.rstrip("\r\n")
            if not stripped.strip():
                if current is not None:
                    current.append("")
                continue
            if not stripped.lstrip().startswith("#"):
                break  # the first data line: the head is over
            if stripped.strip() == START:
                current = []
            elif stripped.strip() == END and current is not None:
                blocks.append("\n".join(current))
                current = None
            elif current is not None:
                body = stripped.lstrip()[1:]
                current.append(body[1:] if body.startswith(" ") else body)
    return blocks


def assign_blocks(blocks: list[str], systems: list[str]) -> dict[str, str]:
    """``{system: text}`` for one file: one block belongs to every system of the file;
    as many blocks as systems go to the systems in their order of appearance (as
    :func:`metadata_lines` writes them; an empty block means none); otherwise every
    system gets all blocks, joined by blank lines."""
    if not blocks:
        return {}
    if len(blocks) == 1:
        pairs = [(s, blocks[0]) for s in systems]
    elif len(blocks) == len(systems):
        pairs = list(zip(systems, blocks))
    else:
        pairs = [(s, "\n\n".join(blocks)) for s in systems]
    return {s: text for s, text in pairs if text.strip()}


def metadata_lines(text: str) -> list[str]:
    """One block as run-file lines: start, the text with ``# `` prefixes, end."""
    body = [f"# {line}" if line else "#" for line in text.rstrip("\n").split("\n")]
    return [START, *(body if text.strip() else []), END]
