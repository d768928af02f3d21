"""The table rules and the Snakemake report end to end, on a small slice of the real
data, with ROUGE and a synthetic judge ('stub', 2 samples per unit) whose outputs
are written in the judge stage's contract before the table rules run."""
import base64
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support import harness
from support.harness import REPO
from support.synthetic import write_judge

pytestmark = pytest.mark.system("rouge-perl")  # tests/support/system.py NEEDS

DATASETS = ("summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum")
SUMMEVAL_VARIANTS = ("base", "def", "def_ins", "sys_prompt")


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    # umask 022: every file the workflow writes must then be readable by the group (0644, never 0600)
    return harness.snakemake(workdir, *args, configfiles=[workdir / "config.yaml"], umask=0o022)


def slice_config(mirror: Path) -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["mirror"] = str(mirror)
    config["subset"] = {"summeval": {"docs": 3}, "newsroom": {"docs": 3}, "tldr": {"units": 30},
                        "realsumm": {"docs": 1}, "qags_cnn": {"units": 30}, "qags_xsum": {"units": 30}}
    metrics = config.get("metrics") or {}  # learned metrics need model downloads: none here
    for spec in metrics.values():
        if isinstance(spec, dict) and "datasets" in spec:
            spec["datasets"] = []
    if "run" in metrics:
        metrics["run"] = []
    if "judge" in config:  # the stub judge: its outputs exist before the table rules run
        config.setdefault("judges", {})["stub"] = {"model": "stub-model", "base_url": "http://127.0.0.1:9/v1"}
        config["judge"]["run"] = ["stub"]
        config["judge"]["summeval_variants"] = list(SUMMEVAL_VARIANTS)
    config["tables"].update(bootstrap_resamples=100, permutation_resamples=100)
    return config


def data_uris(html: str) -> dict[str, bytes]:
    """filename -> decoded content of every file the report embeds."""
    found = re.findall(r"data:[^;\"]+;charset=[^;\"]+;filename=([^;\"]+);base64,([A-Za-z0-9+/=]*)", html)
    return {name: base64.b64decode(payload) for name, payload in found}


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    workdir = tmp_path_factory.mktemp("report")
    config = slice_config(mirror)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    data = [f"results/data/{d}.parquet" for d in DATASETS]
    out = snakemake(workdir, "--cores", "2", *data)
    assert out.returncode == 0, out.stderr[-3000:]
    judged = "judge" in config
    if judged:
        for d in DATASETS:
            human = pd.read_parquet(workdir / f"results/data/{d}.parquet")
            for v in SUMMEVAL_VARIANTS if d == "summeval" else ("base",):
                out = write_judge(human, d, workdir / f"results/judge/stub/{d}/{v}.parquet", v, samples=2)
                if d == "qags_cnn":  # as the 1.5B judge on the slice: "Yes" to every sentence
                    j = pd.read_parquet(out)
                    j = j.assign(status="ok", invalid_reason=None, reply="Yes",
                                 label=pd.array([1] * len(j), dtype="Int64"))
                    j.to_parquet(out, index=False)
        plan = snakemake(workdir, "-n", "--quiet", "rules")
        assert plan.returncode == 0, plan.stderr[-3000:]
        assert not re.search(r"^\s*judge\s", plan.stdout, re.M), "the judge rule would run:\n" + plan.stdout
    out = snakemake(workdir, "--cores", "2")
    assert out.returncode == 0, out.stderr[-3000:]
    rep = snakemake(workdir, "--report", "results/report.html")
    assert rep.returncode == 0, rep.stderr[-3000:]
    return workdir, judged


def test_every_table_in_csv_and_latex(run):
    workdir, judged = run
    for k in range(1, 10):
        for ext in ("csv", "tex"):
            assert (workdir / f"results/tables/table{k}.{ext}").exists(), (k, ext)
    t1 = pd.read_csv(workdir / "results/tables/table1.csv")
    assert {"ROUGE-1", "ROUGE-2", "ROUGE-L"} <= set(t1["row"])
    assert t1[["ci_low", "ci_high"]].notna().all().all()
    pvr = pd.read_csv(workdir / "results/tables/published_vs_reproduced.csv")
    assert len(pvr) >= 200
    if judged:
        assert "stub" in set(t1["row"]) and t1.loc[t1["row"] == "stub", "p_value"].notna().all()
        t9 = pd.read_csv(workdir / "results/tables/table9.csv")
        assert "stub+def+ins" in set(t9["row"])
    manifest = (workdir / "results/manifest.json").read_text()
    assert '"code_version"' in manifest and '"prompt_templates"' in manifest


def test_report_holds_tables_and_chart(run):
    workdir, judged = run
    html = (workdir / "results/report.html").read_text()
    files = data_uris(html)
    for k in range(1, 10):
        assert f"table{k}.csv" in files and f"table{k}.tex" in files, sorted(files)
    assert "published_vs_reproduced.csv" in files and "manifest.json" in files and "usage.csv" in files
    for name in ("judge_vs_best.csv", "judge_vs_best.png", "judge_behaviour.svg", "judge_behaviour.csv",
                 "replies.csv", "replies.html", "prompts.txt", "worktree.patch"):
        assert name in files, (name, sorted(files))
    assert b"likert_summeval.txt" in files["prompts.txt"]
    # the patch of uncommitted changes: empty (an empty data URI) for a clean tree
    assert files["worktree.patch"] == (workdir / "results/provenance/worktree.patch").read_bytes()
    assert files["judge_vs_best.svg"].lstrip().startswith(b"<?xml") and b"<svg" in files["judge_vs_best.svg"]
    assert b"ROUGE-1" in files["table1.csv"]
    overview = files["overview.html"].decode()
    assert "Table 1: SummEval" in overview and "<svg" in overview and "Configuration" in overview
    if judged:
        assert b"stub" in files["table1.csv"] and "stub-model-1" in overview


def test_second_run_has_nothing_to_do(run):
    workdir, _ = run
    out = snakemake(workdir, "-n")
    assert "Nothing to be done" in out.stdout + out.stderr


def test_files_are_group_readable(run):
    """Written under umask 022: no file of results/ keeps mkstemp's 0600."""
    workdir, _ = run
    modes = {str(p.relative_to(workdir)): p.stat().st_mode & 0o777 for p in (workdir / "results").rglob("*")
             if p.is_file()}
    assert len(modes) > 50
    private = sorted(p for p, m in modes.items() if m & 0o044 != 0o044)
    assert not private, private[:20]


def test_table5_marks_the_near_constant_judge(run):
    workdir, judged = run
    if not judged:
        pytest.skip("no judge configured")
    t5 = pd.read_csv(workdir / "results/tables/table5.csv")
    cnn = t5[(t5["row"] == "stub") & (t5["dataset"] == "QAGS_CNN")].iloc[0]
    assert bool(cnn["near_constant"]) and cnn["dispersion"] == 1.0 and cnn["dispersion_measure"] == "modal share"
    assert "slice (units: 30)" in cnn["caveat"] and "near-constant judge" in cnn["caveat"]
    tex = (workdir / "results/tables/table5.tex").read_text()
    line = next(x for x in tex.splitlines() if x.startswith("stub &"))
    first = line.split("&")[1]
    assert r"\textbf" not in first and r"$^\S$" in first


def test_manifest_provenance(run):
    import json

    workdir, _ = run
    m = json.loads((workdir / "results/manifest.json").read_text())
    assert "snakemake" in m["invocation"]["command"]
    assert any(f["file"].endswith("config.yaml") and len(f["sha256"]) == 64 for f in m["invocation"]["config_files"])
    assert m["libraries"]["snakemake"] and m["libraries"]["pandas"]
    patch = workdir / "results/provenance/worktree.patch"
    assert patch.exists()
    if m["worktree"]["dirty"]:
        import hashlib
        assert hashlib.sha256(patch.read_bytes()).hexdigest() == m["worktree"]["patch_sha256"]
    src = [s for s in m["data_sources"] if s["dataset"] == "summeval"]
    assert src and all(s["url"].startswith("https://") and s["mirror_path"] and s["sha256"] == s["pinned_sha256"]
                       for s in src)


# ----------------------------------------------------------------------------- in a real browser

def chromium() -> str:
    from support.system import NEEDS

    NEEDS["chromium"].install()
    return shutil.which("chromium")


def browse(url: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           f"--user-data-dir={out}", "--virtual-time-budget=15000", *extra, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.mark.system("chromium")
def test_overview_and_report_in_a_browser(run, tmp_path):
    """Rendered by headless Chromium: caveats on the landing page and beside each table,
    the judge-behaviour plots and the 28-bar chart."""
    workdir, judged = run
    overview = workdir / "results/tables/overview.html"
    dom = browse(overview.as_uri(), tmp_path / "p1", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = dom.stdout
    assert "<svg" in page and "Read with care" in page
    landing = page[page.index("id=\"caveats\""):page.index("id=\"chart\"")]
    assert "A SLICE, not the paper's data" in landing and "not the paper's ChatGPT" in landing
    # every numeric table has its caveats right above it
    for key in ("table1", "table2", "table3", "table4", "table5", "table6"):
        start = page.index(f'id="{key}"')
        section = page[start:start + 4000]
        assert "caveats" in section and "documents" in section, key
    if judged:
        # one element per column: a bar (with interval), a hollow point (without) or the note (no margin)
        bars = set(re.findall(r'id="((?:bar|point|absent)-stub-[^"]+)"', page))
        assert len(bars) == 28, sorted(bars)
        assert len(set(re.findall(r'id="(behaviour-stub-[^"]+)"', page))) == 6
        assert "near-constant judge: not meaningful" in page
    shot = tmp_path / "overview.png"
    pic = browse(overview.as_uri(), tmp_path / "p2", f"--screenshot={shot}", "--window-size=1000,4000")
    assert pic.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 20_000
    report = workdir / "results/report.html"
    rep = browse(report.as_uri(), tmp_path / "p3", "--dump-dom")
    assert rep.returncode == 0, rep.stderr[-2000:]
    assert "Read with care" in rep.stdout and "not the paper's ChatGPT" in rep.stdout
    assert "slice" in rep.stdout


def test_leaderboard_page_in_a_browser(run, tmp_path):
    """The judge leaderboard: linked from the overview, rendered by headless Chromium with the
    judge's cells (value, interval, n, rank or the greyed reason) and leave-one-out human rows."""
    workdir, judged = run
    if not judged:
        pytest.skip("no judge configured: the leaderboard is not built")
    overview = (workdir / "results/tables/overview.html").read_text()
    assert "href='../leaderboard/leaderboard.html'" in overview
    page = workdir / "results/leaderboard/leaderboard.html"
    dom = browse(page.as_uri(), tmp_path / "lb", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert 'id="verdict"' in html and "Which judge is human-like?" in html and "<svg" in html
    assert html.index('id="verdict"') < html.index('class="dataset"')
    for human in ("SummEval annotator expert0 (LOO)", "anonymous rating slots", "REALSumm voter (LOO, exchangeable)"):
        assert human in html, human
    cells = pd.read_csv(workdir / "results/leaderboard/leaderboard.csv")
    stub = cells[cells["row"] == "stub"]
    assert len(stub) == 28 and stub["n"].notna().all() and stub["ci_low"].notna().all()
    assert (stub["rank_group"].notna() | stub["greyed"] | stub["rank_reason"].notna()).all()
    shot = tmp_path / "leaderboard.png"
    pic = browse(page.as_uri(), tmp_path / "lb2", f"--screenshot={shot}", "--window-size=1400,3000")
    assert pic.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG"
