"""Multiple-comparison adjustment (sumjudge/stats/correction.py): Holm and BH by hand, and
the families of one table row."""
import math

import numpy as np
import pandas as pd
import pytest

from sumjudge.stats.correction import adjust, adjust_table


def test_holm_and_bh_hand_computed():
    p = [0.01, 0.04, 0.03, 0.005, np.nan]
    # holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    assert adjust(p, "holm")[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # bh: sorted 0.005*4/1, 0.01*4/2, 0.03*4/3, 0.04*4/4 -> 0.02, 0.02, 0.04, 0.04
    assert adjust(p, "bh")[:4] == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust(p, "none")[:4] == pytest.approx(p[:4])
    assert all(math.isnan(adjust(p, m)[4]) for m in ("none", "holm", "bh"))
    assert adjust([0.5, 0.9], "holm") == pytest.approx([1.0, 1.0])
    with pytest.raises(ValueError, match="tables.correction"):
        adjust(p, "bonferroni")


def test_families_are_the_columns_of_one_row():
    df = pd.DataFrame({"table": ["T"] * 4, "row": ["j1", "j1", "j2", "j2"], "p_value": [0.02, 0.04, 0.02, np.nan]})
    out = adjust_table(df, "holm")
    assert out["p_adjusted"].tolist()[:3] == pytest.approx([0.04, 0.04, 0.02])
    assert math.isnan(out["p_adjusted"].iloc[3])
