"""Sudoku formats and the loader: samples, round trips, every kind of bad input."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleInputError
from puzzles.formats.grids import FORMATS, decode_input, detect_format, format_grid, parse_grid
from puzzles.kinds.sudoku import Sudoku
from puzzles.loader import Entry, load_puzzles, parse_text, puzzle_paths

SAMPLES = Path(__file__).resolve().parents[2] / "puzzles" / "samples"
from compare.cli.bench import DATASETS  # noqa: E402  (one definition of where the sets live)

BOJ2239 = (SAMPLES / "boj2239.txt").read_text()
BOJ2580 = (SAMPLES / "boj2580.txt").read_text()


def pattern_solution(n: int, relabel=None, row_order=None) -> tuple[int, ...]:
    """A valid full grid: the shifted pattern, optionally relabelled and row-permuted."""
    box = int(n ** 0.5)
    relabel = relabel or list(range(1, n + 1))
    row_order = row_order or list(range(n))
    return tuple(relabel[(box * (r % box) + r // box + c) % n]
                 for r in row_order for c in range(n))


@st.composite
def puzzles(draw, sides=(4, 9, 16, 25)):
    """A puzzle without repeated givens: a valid grid with some cells blanked."""
    n = draw(st.sampled_from(sides))
    box = int(n ** 0.5)
    relabel = draw(st.permutations(range(1, n + 1)))
    bands = draw(st.permutations(range(box)))
    rows = [band * box + r for band in bands for r in range(box)]
    solution = pattern_solution(n, list(relabel), rows)
    keep = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    return Sudoku(n, tuple(v if k else 0 for v, k in zip(solution, keep)))


# ----- the judge samples -------------------------------------------------------
def test_boj2239_sample_is_detected_and_read():
    sudoku, fmt = parse_grid(BOJ2239)
    assert fmt == "boj2239"
    assert sudoku.n == 9 and sudoku.clues == 30
    assert sudoku.rows()[0] == (1, 0, 3, 0, 0, 0, 5, 0, 9)
    assert format_grid(sudoku, "boj2239") == BOJ2239


def test_boj2239_reads_nine_tokens_on_one_line():
    sudoku, fmt = parse_grid(" ".join(BOJ2239.split()) + "\n")
    assert fmt == "boj2239"
    assert format_grid(sudoku, "boj2239") == BOJ2239


def test_boj2580_sample_is_detected_and_read():
    sudoku, fmt = parse_grid(BOJ2580)
    assert fmt == "boj2580"
    assert sudoku.rows()[1] == (7, 8, 2, 1, 0, 5, 6, 0, 9)
    assert format_grid(sudoku, "boj2580") == BOJ2580


def test_line_format_writes_dots_and_the_alphabet():
    sudoku = Sudoku(16, tuple(range(17)) + (0,) * 239)
    text = format_grid(sudoku, "line")
    assert text.startswith(".123456789ABCDEFG...")
    assert text.endswith("\n") and len(text) == 257


@given(st.sampled_from([4, 9, 16]).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, 25), min_size=n * n - 1, max_size=n * n + 1))),
    st.one_of(st.none(), st.tuples(st.integers(0, 300), st.one_of(
        st.integers(-3, 300), st.sampled_from([True, 2.0, "1"])))),
    st.sampled_from([tuple, list]))
@settings(max_examples=300, deadline=None)
def test_an_answer_written_on_the_short_path_reads_as_the_grid_would(case, odd, kind):
    """``format_answer`` writes a line without building a grid for it: the text, or the
    fault, is what writing the grid of those values gives (an odd value anywhere)."""
    n, values = case
    if odd is not None and values:
        values[odd[0] % len(values)] = odd[1]
    puzzle = Sudoku(n, (0,) * (n * n))

    def outcome(write):
        try:
            return write()
        except Exception as exc:
            return type(exc)

    assert outcome(lambda: puzzle.format_answer(kind(values))) == \
        outcome(lambda: format_grid(Sudoku(n, tuple(values)), "line"))


def test_lower_case_letters_and_zero_blanks_are_accepted():
    upper, _ = parse_grid("ABCDEFG" + "0" * 249, "line")
    lower, _ = parse_grid("abcdefg" + "." * 249, "line")
    assert upper.grid == lower.grid
    assert upper.grid[:7] == (10, 11, 12, 13, 14, 15, 16)


def test_comments_blank_lines_crlf_and_bom_are_ignored():
    text = "\ufeff# BOJ 2239\r\n\r\n" + BOJ2239.replace("\n", "  # row\r\n")
    sudoku, fmt = parse_grid(text)
    assert fmt == "boj2239"
    assert sudoku.grid == parse_grid(BOJ2239)[0].grid


def test_an_explicit_format_overrides_detection():
    with pytest.raises(PuzzleInputError, match="9 cells; a puzzle line needs"):
        parse_grid(BOJ2239.split()[0], "line")
    with pytest.raises(PuzzleInputError, match="row 1 has 1 cells"):
        parse_grid(BOJ2580, "boj2239")
    with pytest.raises(ValueError, match="unknown format"):
        parse_grid(BOJ2239, "csv")


@pytest.mark.parametrize("text, fmt", [
    ("1" + "." * 80, "line"),
    ("." * 16 + "\n" + "." * 16 + "\n", "line"),          # two 4x4 puzzles
    ("\n".join(["0" * 16] * 16), "boj2239"),              # one 16x16 grid
    ("1200\n3400\n0000\n0000\n", "boj2239"),
    ("1 2 0 0\n3 4 0 0\n0 0 0 0\n0 0 0 0\n", "boj2580"),
    ("", "line"),
])
def test_detect_format(text, fmt):
    assert detect_format(text) == fmt


# ----- round trips ----------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(puzzles(), st.sampled_from(FORMATS))
def test_every_format_round_trips(sudoku, fmt):
    text = format_grid(sudoku, fmt)
    for asked in (fmt, "auto"):
        back, used = parse_grid(text, asked)
        assert (back.n, back.grid, used) == (sudoku.n, sudoku.grid, fmt)


@settings(max_examples=15, deadline=None)
@given(st.lists(puzzles(sides=(4, 9, 16)), min_size=1, max_size=6))
def test_multi_puzzle_files_round_trip(tmp_path_factory, batch):
    path = tmp_path_factory.mktemp("multi") / "batch.txt"
    path.write_text("# a batch\n" + "".join(format_grid(s, "line") for s in batch))
    entries = load_puzzles(str(path))
    assert [e.error for e in entries] == [None] * len(batch)
    assert [e.puzzle.grid for e in entries] == [s.grid for s in batch]
    assert [e.line for e in entries] == list(range(2, len(batch) + 2))


# ----- bad input: every kind, with its line ---------------------------------------
ROWS = BOJ2239.splitlines()


def _with_row(index: int, row: str) -> str:
    return "\n".join(ROWS[:index] + [row] + ROWS[index + 1:]) + "\n"


@pytest.mark.parametrize("text, line, fragment", [
    ("\n".join(ROWS[:8]) + "\n", 8, "input ends after 8 rows"),
    (BOJ2239 + "123456789\n", 10, "extra row 10"),
    (_with_row(3, "30050200"), 4, "row 4 has 8 cells"),
    ("1" * 80, 1, "80 cells"),
    (_with_row(2, "000x04000"), 3, "stray character 'x'"),
    ("# c\n" + "." * 40 + "?" + "." * 40, 2, "stray character '?' at position 41"),
    (_with_row(1, "00210940A"), 2, "'A' (= 10) is out of range"),
    ("G" + "." * 80, 1, "out of range for a 9x9 grid"),
    (_with_row(0, "103000503"), 1, "r1c3 and r1c9 both hold 3 (row 1)"),
    (_with_row(5, "100803004"), 6, "r1c1 and r6c1 both hold 1 (column 1)"),
    (_with_row(1, "032109400"), 2, "r1c3 and r2c2 both hold 3 (box 1)"),
    (BOJ2580.replace("0 3 5", "0 3 x", 1), 1, "stray character 'x'"),
    (BOJ2580.replace("7 8 2", "7 8 10", 1), 2, "value 10 is out of range"),
    (BOJ2580.replace("7 8 2 1 0", "7 8 2 1", 1), 2, "row 2 has 8 numbers"),
    (BOJ2580.replace("3 2 1 0", "3 2 1 1", 1), 4, "both hold 1 (row 4)"),
])
def test_bad_input_names_the_line_and_the_fault(text, line, fragment):
    with pytest.raises(PuzzleInputError) as caught:
        parse_grid(text, source="puzzle.txt")
    assert caught.value.line == line
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"puzzle.txt, line {line}: ")


def test_the_box_repeat_names_the_box():
    grid = [0] * 81
    grid[0], grid[10] = 5, 5        # r1c1 and r2c2: same box only
    with pytest.raises(PuzzleInputError, match=r"r1c1 and r2c2 both hold 5 \(box 1\)"):
        parse_grid(format_grid(Sudoku(9, tuple(grid)), "line"))


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "   \t\n"])
def test_empty_input(text):
    with pytest.raises(PuzzleInputError, match="empty input") as caught:
        parse_grid(text)
    assert caught.value.line is None


@pytest.mark.parametrize("data, line, fragment", [
    (b"123\n456\x00\n", 2, "NUL byte"),
    (b"\n\n\xff\xfe garbage", 3, "not UTF-8"),
    (bytes(range(256)), 1, "NUL byte"),
])
def test_binary_garbage(data, line, fragment):
    with pytest.raises(PuzzleInputError, match=fragment) as caught:
        decode_input(data, "blob.bin")
    assert caught.value.line == line


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300),
                 st.text(alphabet="0123456789.ABCabc \n#", max_size=200)))
def test_any_text_parses_or_fails_with_a_located_error(text):
    for reader in (lambda: parse_grid(text), lambda: parse_text(text, "t.txt")):
        try:
            reader()
        except PuzzleInputError as err:
            assert "\n" not in str(err)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_fail_as_bad_input(data):
    try:
        text = decode_input(data, "b")
    except PuzzleInputError:
        return
    assert isinstance(text, str)


# ----- the loader -------------------------------------------------------------------
def test_a_single_grid_file_is_one_puzzle_named_by_its_stem():
    entries = load_puzzles(str(SAMPLES / "boj2239.txt"))
    assert len(entries) == 1
    entry = entries[0]
    assert (entry.id, entry.error) == ("boj2239:1", None)
    assert (entry.puzzle.name, entry.puzzle.source) == ("boj2239:1", "boj2239")


def test_bad_lines_become_entries_and_the_rest_still_load(tmp_path):
    good = format_grid(Sudoku(9, pattern_solution(9)), "line")
    path = tmp_path / "mixed.txt"
    path.write_text("# header\n" + good + "\n" + "1" * 81 + "\n" + good.strip() + "x\n" + good)
    entries = load_puzzles(str(path))
    assert [e.line for e in entries] == [2, 4, 5, 6]
    assert [e.error is None for e in entries] == [True, False, False, True]
    assert "both hold 1 (row 1)" in str(entries[1].error)
    assert entries[1].error.line == 4 and entries[2].error.line == 5
    assert entries[3].id == "mixed:6" and entries[3].puzzle.name == "mixed:6"


def test_one_file_may_mix_sizes(tmp_path):
    path = tmp_path / "sizes.txt"
    path.write_text("".join(format_grid(Sudoku(n, pattern_solution(n)), "line")
                            for n in (9, 4, 25, 16)))
    assert [e.puzzle.n for e in load_puzzles(str(path))] == [9, 4, 25, 16]


def test_a_bad_single_grid_is_an_entry_with_its_error(tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text(_with_row(4, "0600x0050"))
    [entry] = load_puzzles(str(path))
    assert entry.puzzle is None and entry.line == 5
    assert "stray character 'x'" in str(entry.error)


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "missing.txt",
    lambda tmp: tmp,
])
def test_unreadable_paths_raise_cannot_read(tmp_path, make):
    path = str(make(tmp_path))
    with pytest.raises(PuzzleInputError, match="cannot read") as caught:
        load_puzzles(path)
    assert caught.value.source == path


def test_an_empty_file_is_bad_input(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing here\n\n")
    with pytest.raises(PuzzleInputError, match="empty input"):
        load_puzzles(str(path))


def test_stdin_is_named_stdin(monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BOJ2580.encode())))
    [entry] = load_puzzles("-")
    assert entry.source == "<stdin>" and entry.id == "stdin:1"
    assert entry.puzzle.source == "stdin"


def test_specs_go_to_the_kind_registry(monkeypatch):
    sudoku = Sudoku(4, (0,) * 16)
    import puzzles.loader
    monkeypatch.setattr(puzzles.loader, "is_spec", lambda arg: arg.startswith("toy:"))
    monkeypatch.setattr(puzzles.loader, "load_spec", lambda arg: sudoku)
    assert load_puzzles("toy:4") == [Entry("toy:4", 0, sudoku, None)]
    assert load_puzzles("toy:4")[0].id == "toy:4"


# ----- formats registered from outside ---------------------------------------------------
@pytest.fixture
def formats(monkeypatch):
    """The format registry, put back as it was after the test."""
    from puzzles.formats import registry
    monkeypatch.setattr(registry, "_FORMATS", dict(registry._FORMATS))
    return registry


def board_sides(text: str, source: str) -> list[Entry]:
    """A toy format: one N-Queens board side per line."""
    from puzzles.kinds.queens import Queens
    return [Entry(source, number, Queens(int(line)), None)
            for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def test_a_registered_format_is_read_by_its_suffix(formats, tmp_path):
    path = tmp_path / "boards.queens"
    path.write_text("4\n6\n")
    [grid_read] = load_puzzles(str(path))          # unregistered: a 1-cell line is bad input
    assert grid_read.puzzle is None and grid_read.error is not None
    formats.register_format("queens-list", (".queens",), parse=board_sides)
    entries = load_puzzles(str(path))
    assert [(e.id, e.puzzle.n) for e in entries] == [("boards:1", 4), ("boards:2", 6)]
    assert puzzle_paths(str(tmp_path)) == [str(path)]      # a folder is listed for it too
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PuzzleInputError, match=r"read for \.mzn, \.csv, \.xml, \.xml\.lzma, \.queens files"):
        puzzle_paths(str(empty))


def test_a_registered_format_may_read_the_file_itself(formats, tmp_path):
    from puzzles.kinds.queens import Queens
    path = tmp_path / "eight.board.bin"
    path.write_bytes(b"\0\x08")                  # binary: no text reading would take it
    formats.register_format("board", (".board.bin",),
                            load=lambda p: [Entry(p, 0, Queens(open(p, "rb").read()[1]), None,
                                                  "eight")])
    [entry] = load_puzzles(str(path))
    assert entry.id == "eight" and entry.puzzle.n == 8


def test_a_registered_sniff_claims_text_before_the_grid_guesses(formats):
    formats.register_format("queens-list", sniff=lambda text: text.startswith("queens\n"),
                            parse=lambda text, source: board_sides(text[7:], source))
    assert [e.puzzle.n for e in parse_text("queens\n5\n", "<stdin>")] == [5]
    assert parse_text(BOJ2580, "x.txt")[0].puzzle.n == 9       # other texts: the grids still
    with pytest.raises(ValueError, match="choose from auto, .*line, queens-list"):
        parse_text("", "x.txt", "csv")


def test_a_format_needs_a_way_in(formats):
    with pytest.raises(ValueError, match="needs load"):
        formats.register_format("nothing", (".none",))


# ----- the public datasets -----------------------------------------------------------
@pytest.mark.datasets
@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent")
@pytest.mark.parametrize("name", ["norvig_top95", "norvig_hardest", "vu_kr_16x16",
                                  "gecode_16x16_janko", "gecode_25x25",
                                  "royle_17clue_49158", "serg_benchmark"])
def test_dataset_files_load_without_error(name):
    path = DATASETS / f"{name}.txt"
    if not path.is_file():
        pytest.skip(f"{path.name} is absent")
    lines = path.read_text().splitlines()[:3000]
    entries = parse_text("\n".join(lines), str(path))
    assert len(entries) == len(lines)
    assert [e.error for e in entries if e.error] == []
    side = {81: 9, 256: 16, 625: 25}[len(lines[0])]
    assert {e.puzzle.n for e in entries} == {side}


# ----- input caps ----------------------------------------------------------------------------
def test_a_device_is_refused_before_it_is_read(capsys):
    from compare.cli import run as run_cli
    from compare.cli import solve as solve_cli
    assert solve_cli.main(["/dev/zero"]) == 2
    assert run_cli.main(["--puzzles", "/dev/zero", "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("/dev/zero: a device, not a puzzle file" in e for e in err)


def test_dev_zero_on_stdin_is_refused(monkeypatch, capsys):
    import io
    import sys as system

    from compare.cli import solve as solve_cli
    zeros = io.BufferedReader(io.FileIO("/dev/zero", "rb"))
    monkeypatch.setattr(system, "stdin", io.TextIOWrapper(zeros))
    assert solve_cli.main([]) == 2
    assert "<stdin>, line 1: line longer than" in capsys.readouterr().err


@pytest.mark.parametrize("block", [3, 7, 1 << 20])
def test_caps_per_line_and_per_input_whatever_the_block_size(monkeypatch, block):
    import io

    from puzzles import reading
    monkeypatch.setattr(reading, "BLOCK", block)
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 10)
    monkeypatch.setattr(reading, "MAX_INPUT_BYTES", 60)
    ok = b"0123456789\n" * 5
    assert reading.read_capped(io.BytesIO(ok), "f") == ok
    for text, line in [(b"short\n" + b"x" * 11 + b"\nend\n", 2), (b"a\nb\nc\n" + b"y" * 11, 4),
                       (b"z" * 11, 1)]:
        with pytest.raises(PuzzleInputError, match=f"f, line {line}: line longer than"):
            reading.read_capped(io.BytesIO(text), "f")
    with pytest.raises(PuzzleInputError, match="f: more than 0 MiB"):
        reading.read_capped(io.BytesIO(b"123456789\n" * 7), "f")


# ----- formats named but not read ----------------------------------------------------
def test_a_named_format_not_read_is_refused_as_not_supported(formats, tmp_path):
    formats.register_refusal("made-up", (".mup",), "Made-up models (.mup)")
    path = tmp_path / "model.mup"
    path.write_text("int: n = 4;\narray[1..n] of var 1..n: q;\nsolve satisfy;\n")
    with pytest.raises(PuzzleInputError) as caught:
        load_puzzles(str(path))
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: Made-up models")
    assert "is not a supported format" in message and "xcsp3 (.xml .xml.lzma)" in message
    assert "out of range" not in message          # not read as a Sudoku grid


def test_a_refusal_is_not_listed_in_a_folder_and_a_reader_replaces_it(formats, tmp_path):
    formats.register_refusal("made-up", (".mup",), "Made-up models (.mup)")
    (tmp_path / "model.mup").write_text("solve satisfy;\n")
    with pytest.raises(PuzzleInputError, match="a folder with no puzzle file"):
        puzzle_paths(str(tmp_path))
    formats.register_format("made-up-reader", (".mup",),
                            parse=lambda text, source: board_sides("5\n", source))
    [entry] = load_puzzles(str(tmp_path / "model.mup"))
    assert entry.puzzle.n == 5
    assert puzzle_paths(str(tmp_path)) == [str(tmp_path / "model.mup")]
