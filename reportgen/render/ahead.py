"""Each section's figures drawn as soon as its result is final, beside the sections still computing.

A report's writing used to begin when its last section ended, with every figure drawn (matplotlib
to SVG: 8.7 CPU-s of adult's report on the 2-core machine) before the pages were laid out, on one
core while the other waited. A section's figures need nothing but its result, so
``FiguresAhead`` draws them on a background thread as each result comes (``evaluate``'s
``on_result``), and the writing finds them drawn (``write_report``'s ``figures``). Adult to PDF
with utility, paired whole-process runs against the checkout before, alternating
(``benchmarks/bench_peer_adult.py --against``, 3 pairs, the 2-core machine): 0.94 of the wall
time (0.90-0.94), 117-129 s against 125-143 s.

The documents are the same, byte for byte: a figure drawn ahead is used only for a result whose
JSON is the one it was drawn from (any other is drawn when written, as before), and a figure not
begun when the page asks for it is drawn there and then. An error drawing a figure ahead is raised
where the page asks for that figure, as it would have been.

Only the figures, not the appendix: laying the appendix out on the same thread (WeasyPrint, pure
Python, 8.6 CPU-s on adult) held the interpreter lock against the detection test's boosting
threads, which took 18.5 s instead of 7, and the report took 0.98 of the time (0.93-1.03).

The thread is a daemon: a report stopped by an error or Ctrl-C does not wait for it; ``close``
drops what has not begun.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from reportgen.metrics.registry import Section
from reportgen.render.document import draw_figures
from reportgen.results import SectionResult

Drawing = tuple[Future[dict[str, str]], Callable[[], dict[str, str]]]


class FiguresAhead:
    """Draws each section's figures on a background thread as its result comes.

    A context manager around evaluating and writing one report: pass ``section_done`` to
    ``evaluate`` (``on_result=``) and ``figures`` to ``write_report`` (``figures=``). ``pages``
    are the sections whose figures it draws (none: it draws nothing, for results never written).
    """

    def __init__(self, pages: Sequence[Section]) -> None:
        self._by_name = {section.name: section for section in pages}
        self._drawn: dict[str, tuple[str, Future[dict[str, str]]]] = {}  # by section: its result's JSON
        self._work: queue.SimpleQueue[Drawing | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        threading.Thread(target=self._run, name="reportgen-figures-ahead", daemon=True).start()

    def __enter__(self) -> FiguresAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def section_done(self, name: str, result: SectionResult) -> None:
        """A section's result is final: draw its figures, if it has a page with figures."""
        section = self._by_name.get(name)
        if section is None or section.figures is None or result.status != "ok":
            return
        future: Future[dict[str, str]] = Future()
        self._drawn[name] = (result.model_dump_json(), future)
        self._work.put((future, lambda: draw_figures(section, result)))

    def figures(self, section: Section, result: SectionResult) -> dict[str, str]:
        """``section``'s figures for ``result``: those drawn ahead from the same result, else drawn now."""
        drawn = self._drawn.get(section.name)
        if drawn is None or drawn[0] != result.model_dump_json() or drawn[1].cancel():  # not begun: here
            return draw_figures(section, result)
        return drawn[1].result()

    def close(self) -> None:
        """Stop the thread once it has finished what it is doing; what has not begun is dropped."""
        self._closed.set()
        self._work.put(None)

    def _run(self) -> None:
        while (item := self._work.get()) is not None:
            future, draw = item
            if self._closed.is_set():
                future.cancel()
            elif future.set_running_or_notify_cancel():  # else taken back by ``figures``
                try:
                    future.set_result(draw())
                except BaseException as error:  # raised where the figure is asked for
                    future.set_exception(error)
