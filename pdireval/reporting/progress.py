"""The report's progress display: one bar over the sections, and inside each section a bar
over its steps (and the bars of the analyses it runs, e.g. the bootstrap's measure groups).

Shown only when asked (``progress=True``) or, by default, when standard error is a terminal;
otherwise nothing is created and nothing is written. tqdm is imported only when shown.
"""

from __future__ import annotations

__all__ = ["Progress", "Steps"]


class Steps:
    """The named steps of one section, as an inner bar that advances once per step.

    ``steps("RIC")`` marks the start of the step "RIC" (the previous step is then done);
    :meth:`close` finishes the last one. Without a bar (progress off) every call does nothing.
    """

    def __init__(self, bar, section: str):
        self._bar = bar
        self._section = section
        self._started = False

    def __call__(self, label: str) -> None:
        if self._bar is None:
            return
        if self._started:
            self._bar.update(1)
        self._started = True
        self._bar.set_description_str(f"{self._section}: {label}")

    def close(self) -> None:
        if self._bar is None:
            return
        if self._started:
            self._bar.update(1)
        self._bar.close()
        self._bar = None


class Progress:
    """Progress of one report: an outer bar over ``n_sections`` sections, inner step bars."""

    def __init__(self, show: bool, n_sections: int):
        self.show = bool(show)
        self._tqdm = None
        self._outer = None
        self._open: list[Steps] = []
        if self.show:
            from tqdm.auto import tqdm

            self._tqdm = tqdm
            self._outer = tqdm(total=n_sections, desc="pdireval report", unit="section")

    def section(self, title: str) -> None:
        """A section starts (its title next to the outer bar)."""
        if self._outer is not None:
            self._outer.set_postfix_str(title)

    def steps(self, section: str, labels) -> Steps:
        """An inner bar over the steps ``labels`` of ``section`` (call the result with each
        label as the step starts)."""
        if self._tqdm is None:
            return Steps(None, section)
        bar = self._tqdm(total=len(labels), desc=section, unit="step", leave=False)
        steps = Steps(bar, section)
        self._open.append(steps)
        return steps

    def section_done(self) -> None:
        """The section ended: close its step bars (even after an early return) and advance."""
        for steps in self._open:
            steps.close()
        self._open.clear()
        if self._outer is not None:
            self._outer.update(1)

    def close(self, *, failed: bool = False) -> None:
        """Close every bar; after an error the outer bar is cleared too, so the error message
        is not preceded by a half-full bar."""
        for steps in self._open:
            steps.close()
        self._open.clear()
        if self._outer is not None:
            if failed:
                self._outer.leave = False
            self._outer.close()
            self._outer = None
