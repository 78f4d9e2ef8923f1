"""Plots fit their data: log axes around the points, the limit only where reached,
no empty panel, and formulations told apart by line style and named in the legend."""
from __future__ import annotations

import pytest

from compare.reporting import figures as page_figures
from compare.reporting import plots, summary
from tests.reporting.test_stats import MS, frame_of, times_frame


@pytest.fixture
def figures(monkeypatch):
    """Every figure the plots make, kept for inspection."""
    made = []
    make = plots._figure

    def keep(**kwargs):
        made.append(make(**kwargs))
        return made[-1]
    monkeypatch.setattr(plots, "_figure", keep)
    return made


def test_scatter_axes_fit_millisecond_times_far_below_the_limit(figures, tmp_path):
    tasks = summary.per_task(times_frame([1 * MS, 4 * MS], [2 * MS, 1 * MS], timeout=10.0))
    plots.scatter(tasks, "a", tmp_path / "s.png", limit=10.0)
    (ax,) = figures[0].axes
    low, high = ax.get_xlim()
    assert ax.get_xscale() == "log" and high <= 0.1 and low >= 0.0001
    assert not [line for line in ax.get_lines() if line.get_xdata()[0] == 10.0]  # no limit


def test_scatter_draws_the_limit_where_a_task_reached_it(figures, tmp_path):
    frame = times_frame([1 * MS, 4 * MS], [2 * MS, 1 * MS], timeout=10.0)
    frame.loc[3, ["status", "verified"]] = ["timeout", None]
    plots.scatter(summary.per_task(frame), "a", tmp_path / "s.png", limit=10.0)
    (ax,) = figures[0].axes
    assert ax.get_xlim()[1] >= 10.0
    assert any(list(line.get_xdata()) == [10.0, 10.0] for line in ax.get_lines())


def test_an_engine_with_no_puzzle_in_common_gets_no_panel(figures, tmp_path):
    rows = [{"puzzle_id": f"p{i}", "engine": e, "total_s": MS} for i in range(3) for e in "ab"]
    rows += [{"puzzle_id": "other", "engine": "c", "total_s": MS}]
    plots.scatter(summary.per_task(frame_of(rows)), "a", tmp_path / "s.png", limit=1.0)
    assert [ax.get_title() for ax in figures[0].axes] == ["b vs a"]


def test_cactus_fits_the_times_and_names_each_formulation_in_the_legend(figures, tmp_path):
    rows = [{"puzzle_id": f"p{i}", "engine": e, "formulation": f, "total_s": (i + 1) * MS}
            for i in range(3) for e in "ab" for f in ("alldiff", "pairwise")]
    plots.cactus(summary.per_task(frame_of(rows)), tmp_path / "c.png", limit=1.0)
    (ax,) = figures[0].axes
    assert ax.get_xlim()[1] < 0.1                       # limit 1 s, times 1-3 ms
    lines = {line.get_label(): line.get_linestyle() for line in ax.get_legend().get_lines()}
    assert lines["a [alldiff]"] != lines["a [pairwise]"]
    assert {"a [alldiff]", "a [pairwise]", "b [alldiff]", "b [pairwise]"} <= set(lines)


def test_the_limit_drawn_is_the_one_the_plots_are_given_not_one_read_off_the_rows(
        figures, tmp_path):
    """The run's settings say the time limit; the rows' own column is not asked again."""
    frame = times_frame([1 * MS, 4 * MS], [2 * MS, 1 * MS], timeout=10.0)
    frame.loc[3, ["status", "verified"]] = ["timeout", None]
    tasks = summary.per_task(frame)
    plots.scatter(tasks, "a", tmp_path / "s.png", limit=5.0)
    plots.cactus(tasks, tmp_path / "c.png", limit=5.0)
    scatter, cactus = figures
    lines = [list(line.get_xdata()) for line in scatter.axes[0].get_lines()]
    assert [5.0, 5.0] in lines and [10.0, 10.0] not in lines
    labels = [line.get_label() for line in cactus.axes[0].get_lines()]
    assert "time limit 5 s" in labels


def test_the_page_scatter_and_the_png_pair_the_same_tasks():
    """One pairing for both scatters (``plots.baseline_pairs``): the page's panels are
    the PNG's, and an unsolved task sits at the limit given."""
    frame = times_frame([1 * MS, 4 * MS], [2 * MS, 1 * MS], timeout=10.0)
    frame.loc[3, ["status", "verified"]] = ["timeout", None]
    tasks = summary.per_task(frame)
    timed, reference, paired = plots.baseline_pairs(tasks, "a", 5.0)
    (k, style, pair), = paired
    assert style["label"] == "b" and reference == "alldiff" and len(pair) == 2
    assert 5.0 in set(pair["t"]) and len(timed) == 4
    panels = page_figures.scatters(tasks, "a", limit=5.0)
    assert list(panels) == [f"scatter-{k}"] and panels[f"scatter-{k}"]["points"] == 2
