"""The leaderboard page in headless Chromium (slow: a browser): the verdict comes first, the
columns follow grouped by dataset, and at 1400 px nothing overflows horizontally (with the savings
column and section and a jury's row, their widest texts)."""
import struct

import numpy as np
import pytest

from sumjudge.datasets import BUILTIN
from sumjudge.leaderboard.render import frontier, page
from support.board import judge_frame, run, table_cells
from sumjudge.leaderboard.beside import savings_columns
from sumjudge.savings.render import fragment as render_fragment
from test_leaderboard_beside import jury_csv, ledger
from test_leaderboard_build import DIMS, small_summeval
from test_table_rules_and_report import browse

WIDTH = 1400
MEASURE = ("<script>document.body.setAttribute('data-scroll-width', document.documentElement.scrollWidth);"
           "</script></body>")


@pytest.mark.system("chromium")
def test_the_page_answers_first_and_fits_1400_px(tmp_path):
    data = small_summeval()
    judges = {(j, "summeval"): judge_frame(data, {d: np.roll(data[d].to_numpy(), k) for d in DIMS})
              for k, j in enumerate(("a-judge-with-a-long-name", "b", "c"))}
    cells = [c for j, v in (("a-judge-with-a-long-name", .9), ("b", .5), ("c", .2))
             for c in table_cells(BUILTIN["summeval"], j, v, 12)]
    # with the savings column and section, and c as a jury of the two others (their widest texts)
    lines = ledger().replace({"good": "a-judge-with-a-long-name", "noisy": "b"})
    out = run(tmp_path / "b", {"summeval": data}, judges, cells,
              config={"leaderboard": {"alt_test": {"min_instances": 5}}}, savings=savings_columns(lines, 25, 0.1),
              juries=jury_csv(DIMS, "c", "a-judge-with-a-long-name+b"))
    assert out["summary"]["labels_saved"].str.len().max() > 30 and out["summary"]["jury"].notna().any()
    frontier(out["summary"], str(tmp_path / "f.svg"))
    svg = (tmp_path / "f.svg").read_text()
    section = render_fragment(lines, {"SummEval": svg}, 25, 0.1)
    html = page(out["cells"], out["summary"], out["pairs"], svg[svg.find("<svg"):], savings_html=section)
    html = html.replace("</body>", MEASURE)
    path = tmp_path / "leaderboard.html"
    path.write_text(html)
    dom = browse(path.as_uri(), tmp_path / "p1", "--dump-dom", f"--window-size={WIDTH},3000")
    assert dom.returncode == 0, dom.stderr[-2000:]
    width = int(dom.stdout.split('data-scroll-width="')[1].split('"')[0])
    assert width <= WIDTH
    assert dom.stdout.index('id="verdict"') < dom.stdout.index('class="dataset"')
    shot = tmp_path / "leaderboard.png"
    pic = browse(path.as_uri(), tmp_path / "p2", f"--screenshot={shot}", f"--window-size={WIDTH},3000")
    head = shot.read_bytes()[:24]
    assert pic.returncode == 0 and head[:4] == b"\x89PNG"
    assert struct.unpack(">II", head[16:24]) == (WIDTH, 3000) and shot.stat().st_size > 20_000
