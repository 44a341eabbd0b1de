"""Issue 35, part three: paths that gave a plausible but wrong number, or an error without the
words a user needs; each now gives the right number, says what it did, or refuses clearly."""

from __future__ import annotations

import polars as pl

import polars_rankk as rk


def _two_systems() -> rk.Evaluation:
    candidates = pl.DataFrame(
        {"model": ["A", "A", "B", "B"], "user": [1, 1, 1, 1], "item": [1, 2, 1, 2],
         "score": [0.9, 0.1, 0.1, 0.9]}
    )  # fmt: skip
    truth = pl.DataFrame({"user": [1], "item": [2]})
    return rk.evaluate(
        candidates, truth, k=[1, 2], metrics="hit_rate", group_by="user", system="model"
    )


def test_markdown_of_a_several_systems_summary_has_one_row_per_system() -> None:
    res = _two_systems()
    text = rk.to_markdown(res.summary(), digits=2)
    assert text.splitlines()[0] == "| model | hit_rate@1 | hit_rate@2 |"
    assert "| A | 0.00 | **1.00** |" in text
    assert "| B | **1.00** | **1.00** |" in text
    assert text == rk.to_markdown(res, digits=2)
    assert rk.to_latex(res.summary()) == rk.to_latex(res)
