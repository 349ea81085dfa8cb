"""The table's benchmark: counts it cannot measure are refused before it starts."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "args",
    [["--presses", "0"], ["--presses", "-3"], ["--throws", "-1"], ["--idle-seconds", "0"]],
)
def test_a_count_it_cannot_measure_is_one_line_and_exit_2(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--presses 0 ran the whole table and then ended in a traceback ("no median for
    empty data")."""
    from table.service import bench

    def no_table(*_args: object) -> None:
        raise AssertionError("the table was started")

    monkeypatch.setattr(bench, "measure_loop", no_table)
    with pytest.raises(SystemExit) as stop:
        bench.main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert args[0] in err and "Traceback" not in err
