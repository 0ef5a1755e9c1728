"""Step-through pages: a scenario's run, step by step, as lit charts beside the trace.

:func:`write_lit_run` writes, for every step of a run, each chart (every battlefield's, and
the small focus, priority, scheduler and turn charts) with its active states lit and the
transitions just taken marked, and one self-contained page that steps through the run: no
network, the CSS, the script and the SVGs inline.

Layout. For a scenario file ``NAME.yaml`` and ``--diagrams DIR``, the page is
``DIR/NAME.html`` and the lit charts are ``DIR/NAME/step-NNN-CHART.svg``: ``NNN`` the step
number with three digits at least (``000`` is the setup), ``CHART`` the chart:
``battlefield-ID`` for each battlefield, then ``focus``, ``priority``, ``scheduler`` and
``turn``. In a battlefield id, every character but ASCII letters, digits, ``_`` and ``-`` is
written as ``~`` and its UTF-8 bytes in hex (``battlefield:A/1`` -> ``battlefield-A~2F1``), so
a file name never leaves its folder and two ids never share one. When files of one run share a
name (``a/same.yaml``, ``b/same.yaml``), the later ones get ``NAME-2``, ``NAME-3``... (the
first name whose page and folder no earlier file of the run uses, ignoring case and how a
letter is composed, as macOS and Windows do), and one line on stderr says which page is whose:
``riftchart run: b/same.yaml: its page is DIR/same-2.html``. ``step-*.svg`` files in
``DIR/NAME/`` that the run did not write (from a longer earlier run) are removed; nothing else
there is touched.

Failure. Everything is drawn before anything is written, and the paths are checked first (a
file where the folder goes, a folder where a file goes), so a missing Graphviz or a clash
writes nothing. Every file is then written beside its place under a temporary name of ours
(``.step-000-focus.svg.partial``), and only once all of them are written are they moved into
place, the page last. So a write that still fails halfway (a full disk), or Ctrl-C, leaves an
earlier page and its pictures as they were: it removes its temporary files and the folders it
made itself, and only those. The error names the file that could not be written. A file that
is replaced keeps its permissions; a page or picture that is a symbolic link stays one, and
is written through in place, which alone cannot be taken back.

Safety. Everything a scenario file can put in the page (its name, ids, display names, trace
lines, state values) goes through :func:`html.escape` here, on the server side; the page's
script never builds markup from data, it only shows and hides what was rendered. The charts
are drawn from state ids, events and rule citations of the chart definitions only (see
``engine.diagrams.chart_dot``): no scenario text reaches Graphviz. As a second line of
defence, the page's Content-Security-Policy allows no network at all and only the one script
and style block whose hashes it names, so even a mistake in escaping could not run code.

Access. The lit states are not told by colour alone: each step's text lists every chart's
active states in words, by the names the charts show, and each chart picture is described by
its line there. The pictures can be reached with Tab and zoomed with Enter or Space.

Determinism. The same run gives the same bytes: charts in a fixed order, states in document
order, no time stamps, and the Graphviz version comment dropped from the inlined SVGs.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from engine.core import TransitionTaken
from engine.diagrams import chart_dot, guard_label, render_svg, transition_label
from engine.runner import OK, RunResult, StepRecord, describe
from engine.runtime import Transition, compiled
from engine.state import chart_of
from engine.view import active_state_names, chart_caption
from engine.writable import same_file_key, write_whole
from statecharts import GAME_WIDE_CHARTS

# --- which charts a step lights -----------------------------------------------------------


@dataclass(frozen=True)
class LitChart:
    """One chart as a step left it: its active states and the transitions just taken."""

    key: str  # "battlefield:A", "focus", ...
    chart: str  # the chart's name in ``statecharts.CHARTS``: "battlefield", "focus", ...
    active: frozenset[str]
    taken: frozenset[Transition]

    @property
    def active_in_order(self) -> list[str]:
        """The active states in document order (outermost first), for reading."""
        return compiled(self.chart).in_order(self.active)

    @property
    def active_names(self) -> list[str]:
        """The active states in words (:func:`engine.view.active_state_names`)."""
        return active_state_names(self.chart, self.active)

    @property
    def caption(self) -> str:
        """The chart as the page names it: ``battlefield A``, ``focus``."""
        return chart_caption(self.key)

    @property
    def taken_in_order(self) -> list[Transition]:
        return sorted(self.taken, key=lambda t: t.order)

    @property
    def taken_labels(self) -> list[str]:
        """The taken transitions as the pictures label them (``[else]`` included)."""
        chart = compiled(self.chart)
        return [transition_label(t, chart) for t in self.taken_in_order]

    def svg(self) -> str:
        """The chart as Graphviz draws it, lit (cached: many steps repeat a picture)."""
        return _lit_svg(self.chart, self.active, self.taken)


def chart_keys(configs: Mapping[str, frozenset[str]]) -> list[str]:
    """The charts of a step, in the order they are shown: the battlefields in setup order
    (the order the game keeps them in), then the game-wide charts (a game has no other)."""
    battlefields = [k for k in configs if chart_of(k) == "battlefield"]
    return battlefields + [k for k in GAME_WIDE_CHARTS if k in configs]


def lit_charts(record: StepRecord) -> list[LitChart]:
    """Every chart of a step, lit with its configuration and the transitions it took."""
    taken_by_key: dict[str, list[TransitionTaken]] = {}
    for step in record.taken:
        taken_by_key.setdefault(step.chart, []).append(step)
    return [
        LitChart(
            key,
            chart_of(key),
            frozenset(record.configs[key]),
            _compiled_transitions(chart_of(key), taken_by_key.get(key, ())),
        )
        for key in chart_keys(record.configs)
    ]


def _compiled_transitions(chart: str, taken: Iterable[TransitionTaken]) -> frozenset[Transition]:
    """The compiled transitions that the observed ones were, by their document order (two
    transitions may share source, event, rule and target and differ only in their guards)."""
    transitions = compiled(chart).transitions
    return frozenset(transitions[step.order] for step in taken if step.order >= 0)


@lru_cache(maxsize=1024)
def _lit_svg(chart: str, active: frozenset[str], taken: frozenset[Transition]) -> str:
    # Graphviz takes tens of milliseconds per battlefield chart, and a run mostly repeats a
    # few configurations, so the same (chart, configuration, taken set) is drawn once
    return render_svg(chart_dot(chart, active, taken))


# --- files --------------------------------------------------------------------------------


def write_lit_run(result: RunResult, out_dir: str | Path, name: str | None = None) -> list[Path]:
    """Write the lit charts of every step and the step-through page of ``result``.

    Writes ``<out_dir>/<stem>/step-NNN-<chart>.svg`` for every step and chart (``<chart>``
    is the chart key made a file name by :func:`file_key`, e.g. ``battlefield-A``) and
    ``<out_dir>/<stem>.html``, ``<stem>`` being ``name`` or else the scenario file's name
    without its suffix. Older ``step-*.svg`` files in ``<out_dir>/<stem>/`` (from a longer
    earlier run) are removed. Returns the paths written, sorted.

    Raises ``OSError`` (its ``filename`` the path that could not be written) with nothing
    written when a path is taken by the wrong kind of thing; a write that fails later takes
    back the files and folders it made and leaves the files that were there as they were
    (see "Failure" above). Raises ``graphviz.ExecutableNotFound``, with nothing written,
    without Graphviz.
    """
    out = Path(out_dir)
    stem = name or Path(result.path).stem or "scenario"
    folder = out / stem
    page = out / f"{stem}.html"
    # drawn before anything is written: without Graphviz, no empty folder is left behind
    frames = [lit_charts(record) for record in result.steps]
    svgs = {folder / file: lit.svg() for _, file, lit in _picture_files(result, frames)}
    text = render_page(result, frames, pictures_folder=stem)
    # the page last, so it is moved into place last
    write_whole(folder, {**svgs, page: text})
    _remove_stale(folder, set(svgs))
    return sorted([*svgs, page])


def _picture_files(result: RunResult, frames: Sequence[Sequence[LitChart]]
                   ) -> list[tuple[int, str, LitChart]]:
    """Each step's charts, with the step's number and their SVG file's name,
    ``step-NNN-<chart>.svg``, in the order of the steps and, within one, of the pictures."""
    names = file_keys([lit.key for lit in frames[0]]) if frames else {}
    return [(record.index, f"step-{record.index:03d}-{names[lit.key]}.svg", lit)
            for record, charts in zip(result.steps, frames, strict=True) for lit in charts]


def _remove_stale(folder: Path, written: set[Path]) -> None:
    """Remove the step pictures of an earlier, longer run, which this page does not show."""
    for stale in sorted(set(folder.glob("step-*.svg")) - written):
        if stale.is_file() or stale.is_symlink():
            stale.unlink()


def file_key(key: str) -> str:
    """A chart key as a safe, portable file-name part: ``battlefield:A`` -> ``battlefield-A``.

    Battlefield ids come from scenario files and may hold ``/``, ``..`` or characters that
    some file systems refuse, so every character but ASCII letters, digits, ``_`` and ``-``
    is written as ``~`` and its UTF-8 bytes in hex; ``~`` itself is encoded, so two keys
    never share a file name.
    """
    return "-".join(_file_part(part) for part in key.split(":", 1))


def file_keys(keys: Sequence[str]) -> dict[str, str]:
    """:func:`file_key` of each chart key, except where two would differ only in case
    (battlefields ``A`` and ``a``: one file on macOS and Windows, see
    :func:`~engine.writable.same_file_key`): the later one is written wholly encoded
    (``battlefield-~61``), which no plain id's name can be."""
    names: dict[str, str] = {}
    seen: set[str] = set()
    for key in keys:
        name = file_key(key)
        if same_file_key(name) in seen:
            chart, _, ident = key.partition(":")
            name = f"{chart}-{_file_part(ident, every=True)}"
        seen.add(same_file_key(name))
        names[key] = _within_a_file_name(name, key)
    return names


#: the longest chart part of a picture's name: with ``step-NNN-`` and ``.svg`` it stays well
#: within the 255 bytes a file name may have on common file systems
MAX_FILE_KEY = 120


def _within_a_file_name(name: str, key: str) -> str:
    """``name``, or when longer than :data:`MAX_FILE_KEY` its first 100 characters, ``~~``
    and 16 hex digits of the key's SHA-256: ``~~`` is in no encoded name (``~`` itself is
    encoded), so a shortened name is none other."""
    if len(name) <= MAX_FILE_KEY:
        return name
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{name[:100]}~~{digest}"


def _file_part(text: str, every: bool = False) -> str:
    return "".join(
        ch if not every and ch.isascii() and (ch.isalnum() or ch in "_-") else
        "".join(f"~{byte:02X}" for byte in ch.encode("utf-8"))
        for ch in text
    )


# --- the page -----------------------------------------------------------------------------


def render_page(result: RunResult, frames: Sequence[Sequence[LitChart]] | None = None,
                pictures_folder: str | None = None) -> str:
    """The step-through page of ``result`` as one self-contained HTML document.

    ``frames`` are the lit charts of each step (computed from ``result`` when not given).
    Each step is a ``<section class="step" data-step="N">``; each chart in it a
    ``<figure class="chart" data-chart="KEY" data-active="..." data-taken="...">`` whose
    ``data-active`` lists the chart's active states in document order; it can be focused
    (``tabindex="0"``) and is described (``aria-describedby``) by its line in the step's
    ``<ul class="active">``, which names its active states in words. The script hides every
    step but the one shown (without script all are shown, one after another, and the stepping
    controls and the steps list, ``.needs-script``, are not); ``#step-label`` reads "Step N
    of M". With ``pictures_folder`` (the folder of the SVG files beside the page, as
    :func:`write_lit_run` names it), a page read without script links each later step's
    pictures, which only the script draws.
    """
    if frames is None:
        frames = [lit_charts(record) for record in result.steps]
    links: dict[int, list[tuple[str, LitChart]]] = {}
    if pictures_folder is not None:
        for index, file, lit in _picture_files(result, frames):
            links.setdefault(index, []).append((f"{pictures_folder}/{file}", lit))
    pictures = _Pictures()
    # step 0 carries its charts inline, so the page shows a whole step even without script
    sections = [
        _step_section(result, position, frames[position], pictures, inline=position == 0,
                      links=links.get(result.steps[position].index, []))
        for position in range(len(result.steps))
    ]
    last = result.steps[-1].index if result.steps else 0
    title = result.name or Path(result.path).name
    verdict = "PASS" if result.code == OK else "FAIL"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(_policy())}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)} \u2014 riftchart step-through</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta"><code>{_e(result.path)}</code> \u00b7 rules: {_e(result.rules)} \u00b7 '
        f'<span class="verdict {verdict.lower()}">{verdict}</span></p>',
        (f'<p class="failure">{_e(result.message)}</p>' if result.code != OK else ""),
        '<div id="controls" class="needs-script">',
        '<button type="button" id="prev" disabled>\u2190 previous</button>',
        f'<span id="step-label" aria-live="polite">Step 0 of {last}</span>',
        f'<button type="button" id="next"{" disabled" if len(result.steps) < 2 else ""}>'
        "next \u2192</button>",
        '<span class="hint" id="zoom-hint">Left/Right arrow keys step (on a zoomed chart or a '
        "focused state table, they scroll it), N and P step from anywhere; click a chart, or "
        "Tab to it and press Enter, to zoom (a zoomed chart stays zoomed from step to "
        "step)</span>",
        "</div>",
        '<p class="legend"><span class="swatch lit"></span> active state '
        '<span class="swatch taken"></span> transition just taken</p>',
        "<noscript><p>Without script the steps follow one another, each with its charts' "
        "active states in words; the pictures of the first step are drawn, and every step's "
        "are the SVG files in the folder beside this page"
        + (", linked from each later step" if links else "") + ".</p></noscript>",
        "</header>",
        '<div id="layout">',
        _steps_nav(result),
        "<main>",
        *sections,
        "</main>",
        "</div>",
        *pictures.templates(),
        f"<script>{_JS}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(part for part in parts if part) + "\n"


class _Pictures:
    """The distinct SVGs of a page, each kept once in a ``<template id="svg-N">``: most
    steps show a picture that an earlier step showed already."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def number(self, svg: str) -> int:
        return self._numbers.setdefault(svg, len(self._numbers))

    def templates(self) -> list[str]:
        return [
            f'<template id="svg-{number}">{inline_svg(svg)}</template>'
            for svg, number in self._numbers.items()
        ]


_SVG_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_SVG_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SVG_ID = re.compile(r' id="[^"]*"')


def inline_svg(svg: str) -> str:
    """Graphviz's SVG made fit to sit inside an HTML page.

    The XML declaration, DOCTYPE and comments (the Graphviz version among them) go; so do
    the element ids, which Graphviz numbers the same way in every chart (``node1``...) and
    which would repeat in a page that shows several charts. Nothing in the SVG refers to
    them. A ``<script`` or ``<foreignObject`` would mean the SVG is not Graphviz's plain
    drawing of the chart, and is refused rather than inlined.
    """
    body = _SVG_ID.sub("", _SVG_COMMENT.sub("", _SVG_PROLOG.sub("", svg, count=1)))
    lowered = body.lower()
    if "<script" in lowered or "<foreignobject" in lowered:
        raise ValueError("refusing to inline an SVG with script or foreign content")
    # the figure is described in words (its step's active states); its drawing's hundreds of
    # labels and internal names are not for a screen reader to read out
    return body.strip().replace("<svg ", '<svg aria-hidden="true" ', 1)


def _steps_nav(result: RunResult) -> str:
    items = []
    for position, record in enumerate(result.steps):
        # one stop for Tab, the current step's (the script moves it), not one per step;
        # the title gives the whole step where the list cuts it short
        current = ' aria-current="step" tabindex="0"' if position == 0 else ' tabindex="-1"'
        said = describe(record.do)
        items.append(
            f'<li><button type="button" data-goto="{position}"{current} title="{_e(said)}">'
            f'<span class="n">{record.index}</span> {_e(said)}</button></li>'
        )
    return (f'<nav class="needs-script"><h2>Steps</h2><ol id="steps-nav">{"".join(items)}</ol>'
            "</nav>")


def _step_section(
    result: RunResult,
    position: int,
    charts: Sequence[LitChart],
    pictures: _Pictures,
    *,
    inline: bool,
    links: Sequence[tuple[str, LitChart]] = (),
) -> str:
    record = result.steps[position]
    previous = result.steps[position - 1].state if position else None
    failed_here = result.code != OK and position == len(result.steps) - 1
    kind = "setup" if record.do is None else next(iter(record.do))
    parts = [
        # every step is in the markup unhidden, so that without script the page reads as one
        # after another; the script hides all but the one shown
        f'<section class="step" data-step="{record.index}">',
        # focusable, so that arrow keys scroll a state table wider than the column
        f'<div class="text" tabindex="0" role="region" aria-label="Step {record.index}">',
        f'<h2><span class="n">Step {record.index}</span> <span class="kind">{_e(kind)}</span></h2>',
        f'<p class="do"><code>{_e(describe(record.do))}</code></p>',
        (f'<p class="failure">This step failed: {_e(result.message)}</p>' if failed_here else ""),
        "<h3>Trace</h3>",
        _trace_html(record.lines, setup=record.do is None),
        "<h3>Transitions taken</h3>",
        _taken_html(record.taken),
        "<h3>Active states</h3>",
        _active_html(charts, position),
        "<h3>State</h3>",
        _state_html(record.state, previous),
        "</div>",
        '<div class="charts">',
    ]
    for number, lit in enumerate(charts):
        parts.append(_figure_html(lit, pictures, _active_id(position, number), inline=inline))
    if links and not inline:  # the script draws these pictures; without it, they are files
        anchors = " \u00b7 ".join(f'<a href="{_e(quote(href))}">{_e(lit.caption)}</a>'
                                  for href, lit in links)
        parts.append(f'<noscript><p class="pictures">Charts (SVG): {anchors}</p></noscript>')
    parts += ["</div>", "</section>"]
    return "\n".join(part for part in parts if part)


def _figure_html(lit: LitChart, pictures: _Pictures, described_by: str, *, inline: bool) -> str:
    # focusable, so that a keyboard can reach and zoom it too; described by the words that
    # list its lit states, for whoever cannot tell them by the colour
    kind_class = "battlefield" if lit.chart == "battlefield" else "small"
    # a picture the script fills in: without script the figure would be an empty box
    if not inline:
        kind_class += " needs-script"
    return (
        f'<figure class="chart {kind_class}" data-chart="{_e(lit.key)}" '
        f'data-active="{_e(" ".join(lit.active_in_order))}" '
        f'data-taken="{_e(" | ".join(lit.taken_labels))}" '
        f'data-svg="{pictures.number(lit.svg())}" tabindex="0" '
        f'aria-describedby="{described_by} zoom-hint">'
        f"<figcaption>{_e(lit.caption)}</figcaption>"
        + (inline_svg(lit.svg()) if inline else "")
        + "</figure>"
    )


def _active_id(position: int, number: int) -> str:
    return f"active-{position}-{number}"


def _active_html(charts: Sequence[LitChart], position: int) -> str:
    """Every chart's active states in words, one line a chart, in the order the pictures
    are shown: the pictures tell them by colour only."""
    items = [
        f'<li id="{_active_id(position, number)}"><span class="chart-name">{_e(lit.caption)}'
        "</span>: " + ", ".join(f"<code>{_e(name)}</code>" for name in lit.active_names)
        + "</li>"
        for number, lit in enumerate(charts)
    ]
    return f'<ul class="active">{"".join(items)}</ul>'


_CITATION = re.compile(r"\A(?P<text>.*) \((?P<rule>[^()]*)\)\Z", re.DOTALL)


def _trace_html(lines: Sequence[str], *, setup: bool) -> str:
    if not lines:
        said = "The position as the scenario sets it up." if setup else "Nothing happened."
        return f'<p class="none">{said}</p>'
    items = []
    for line in lines:
        # each trace line ends with its rule citation; set it apart, the way a rulebook
        # reader looks for it
        match = _CITATION.match(line)
        if match:
            items.append(
                f'<li>{_e(match["text"])} <span class="rule">({_e(match["rule"])})</span></li>'
            )
        else:
            items.append(f"<li>{_e(line)}</li>")
    return f'<ol class="trace">{"".join(items)}</ol>'


def _taken_html(taken: Sequence[TransitionTaken]) -> str:
    # in the order they were taken, across charts: that is how the rules flowed
    items = [
        # the chart named as the pictures and the active states name it: ``battlefield A``
        f'<li><span class="chart-name">{_e(chart_caption(step.chart))}</span>: '
        f"{_e(step.source)} \u2192 {_e(step.target)} "
        f"on <code>{_e(step.event)}</code>{_guard_html(step)} "
        f"<span class=\"rule\">({_e(step.rule)})</span></li>"
        for step in taken
    ]
    if not items:
        return '<p class="none">None.</p>'
    return f'<ol class="taken">{"".join(items)}</ol>'


def _guard_html(step: TransitionTaken) -> str:
    """The guard as the pictures label it: ``[else]`` where an earlier transition of the
    same state and event goes before."""
    if step.order < 0:  # not told which transition it was: its guards as they held
        return f" [{_e(step.guard)}]" if step.guard else ""
    chart = compiled(chart_of(step.chart))
    label = guard_label(chart.transitions[step.order], chart)
    return f" {_e(label)}" if label else ""


def _state_html(state: Mapping[str, Any], previous: Mapping[str, Any] | None) -> str:
    rows = []
    for key, value in state.items():
        # a value that differs from the previous step's is marked, to spot what a step did
        changed = previous is not None and previous.get(key, _MISSING) != value
        mark = ' class="changed"' if changed else ""
        # said in words as well as by the colour
        said = ' <span class="mark">(changed)</span>' if changed else ""
        # a long key (scored_this_turn) may break after an underscore: the column stays narrow
        head = _e(key).replace("_", "_<wbr>")
        rows.append(f"<tr{mark}><th>{head}{said}</th><td>{_value_html(value)}</td></tr>")
    return f'<table class="state">{"".join(rows)}</table>'


_MISSING = object()


def _value_html(value: Any) -> str:
    """A state value as readable HTML: scalars as text, lists as items, mappings as tables
    (a mapping of mappings, like ``units``, as one grid with a column per field)."""
    if value is None:
        return '<span class="null">null</span>'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return _e(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return '<span class="null">[]</span>'
        return "".join(f'<span class="item">{_value_html(item)}</span>' for item in value)
    if isinstance(value, Mapping):
        if not value:
            return '<span class="null">{}</span>'
        if all(isinstance(inner, Mapping) for inner in value.values()):
            return _grid_html(value)
        rows = "".join(
            f"<tr><th>{_e(k)}</th><td>{_value_html(v)}</td></tr>" for k, v in value.items()
        )
        return f'<table class="inner">{rows}</table>'
    return _e(repr(value))


def _grid_html(rows: Mapping[str, Mapping[str, Any]]) -> str:
    columns: list[str] = []
    for inner in rows.values():
        columns += [k for k in inner if k not in columns]
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><th>{_e(name)}</th>"
        + "".join(
            f"<td>{_value_html(inner[c]) if c in inner else ''}</td>" for c in columns
        )
        + "</tr>"
        for name, inner in rows.items()
    )
    return f'<table class="grid"><tr><th></th>{head}</tr>{body}</table>'


def _e(value: Any) -> str:
    """HTML-escaped text, quotes included, so it is safe in content and in attributes."""
    return html.escape(str(value), quote=True)


def _policy() -> str:
    """The page's Content-Security-Policy: nothing from the network, and only the page's
    own script and style (by hash), so no injected markup could run or load anything."""
    return (
        "default-src 'none'; "
        f"script-src '{_sha256(_JS)}'; "
        f"style-src '{_sha256(_CSS)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


# the page's style and script, files of their own beside this module (the page's
# Content-Security-Policy names them by hash, so their text is used exactly as written)
_CSS = "\n" + (resources.files("engine") / "stepthrough.css").read_text(encoding="utf-8")
_JS = "\n" + (resources.files("engine") / "stepthrough.js").read_text(encoding="utf-8")

