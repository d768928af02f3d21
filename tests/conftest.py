"""Shared fixtures. Tests read the real data from the local mirror (../shared/data
beside the checkout, or $SUMJUDGE_MIRROR), exactly as CI does."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from support.tiers import fast_tier_guard
from support.harness import MIRROR, default_options

# tests/<stage>/test_<module>.py, tests/workflow/ (tests/README.md). pytest puts each test file's own folder on
# sys.path when it collects it; these lines put every folder there from the start, so that a test importing
# another's fixtures by basename (test_latex_compiles from test_tables_build, ...) also runs on its own.
for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and any(_folder.glob("test_*.py")) and str(_folder) not in sys.path:
        sys.path.append(str(_folder))


# ----------------------------------------------------------------------------- the tiers
# `pytest -m "not slow"` is the unit tier (tests/support/tiers.py). A test that needs the machine
# (@pytest.mark.system) is slow by that alone; a test not marked slow that starts Snakemake, apt-get,
# Perl's ROUGE, LaTeX, a browser, SLURM or the embedded model fails with the mark to add.

def pytest_itemcollected(item):  # before `-m` selects by marks
    if item.get_closest_marker("system") and not item.get_closest_marker("slow"):
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if item.get_closest_marker("slow"):
        return (yield)
    with fast_tier_guard(item.nodeid):  # setup (module fixtures included), call and teardown
        return (yield)


# ----------------------------------------------------------------------------- the machine
# Tests marked @pytest.mark.system("<need>") (tests/support/system.py: NEEDS) install Debian packages
# when missing or change the machine. The run says so once at the start; SUMJUDGE_TEST_SYSTEM=0
# leaves out those whose need is not met already, in one summary line; a machine with its own
# SLURM configuration never gets the test cluster's /etc/slurm/slurm.conf.

def pytest_configure(config):
    config.addinivalue_line("markers", "system(need): the test needs a Debian package or changes the machine "
                                       "(tests/support/system.py NEEDS); SUMJUDGE_TEST_SYSTEM=0 leaves it out")
    config._sumjudge_left_out = []


def _needs(item) -> list[str]:
    from support.system import NEEDS

    names = [n for m in item.iter_markers("system") for n in m.args]
    unknown = [n for n in names if n not in NEEDS]
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: unknown system need {unknown}; known: {sorted(NEEDS)}")
    return names


@pytest.hookimpl(trylast=True)  # after `-m`: only the selected tests install or change anything
def pytest_collection_modifyitems(session, config, items):
    from support.system import NEEDS, OPT_OUT, _own_slurm, opted_out

    met = {n: need.ready() and not need.changes for n, need in NEEDS.items()}  # asked once per run
    keep, left, plan = [], [], {}
    for item in items:
        names = _needs(item)
        unmet = [n for n in names if not met[n]]
        if "slurm" in names and _own_slurm():
            left.append((item, "this machine has a SLURM of its own (its /etc/slurm/slurm.conf, SLURM_CONF or "
                               "daemons); the test cluster stays off it"))
        elif unmet and opted_out():
            left.append((item, f"{OPT_OUT}=0 and it would install or change: {', '.join(unmet)}"))
        else:
            keep.append(item)
            for n in unmet:
                plan.setdefault(n, []).append(item)
    if left:
        config.hook.pytest_deselected(items=[i for i, _ in left])
        items[:] = keep
    config._sumjudge_left_out = left
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if plan and reporter:
        reporter.write_line(f"sumjudge tests: {len(sum(plan.values(), []))} selected tests change this machine "
                            f"({OPT_OUT}=0 leaves them out):")
        for n, its in plan.items():
            need = NEEDS[n]
            todo = [] if need.ready() else [f"apt-get install -y {' '.join(need.packages)}"]
            todo += [need.changes] if need.changes else []
            reporter.write_line(f"  {need.what}: {'; '.join(todo)} ({len(its)} tests)")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    left = getattr(config, "_sumjudge_left_out", [])
    if left:
        reasons = sorted({why for _, why in left})
        terminalreporter.write_line(f"sumjudge: left out {len(left)} tests ({'; '.join(reasons)}): "
                                    + ", ".join(i.nodeid for i, _ in left))


@pytest.fixture(autouse=True)
def _system_needs(request):
    """Install what a marked test needs (never a silent skip: a failed install fails the test)."""
    from support.system import NEEDS

    for n in _needs(request.node):
        NEEDS[n].install()


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "summeval").is_dir():
        pytest.fail(f"data mirror not found at {MIRROR}; set SUMJUDGE_MIRROR to a directory "
                    "laid out like shared/data")
    return MIRROR


DEFAULT_OPTIONS = default_options()  # config.yaml's reader sections and subset: a default changes in one place


@pytest.fixture(scope="session")
def prepared(mirror):
    """Prepare every dataset from the mirror once per session (about a second)."""
    from sumjudge.data.prepare import locate, prepare_dataset, source_files
    from sumjudge.datasets import BUILTIN

    cache = {}

    def get(name: str, options: dict | None = None):
        opts = options or DEFAULT_OPTIONS
        key = (name, repr(opts))
        if key not in cache:
            inputs = locate(source_files(name, opts), mirror)
            cache[key] = prepare_dataset(name, inputs, opts)
        return cache[key]

    assert set(BUILTIN) >= {"summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum",
                            "dialsummeval", "squality", "helm_news", "cnndm_comparisons"}
    return get
