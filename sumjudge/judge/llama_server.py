"""``python -m sumjudge.judge.llama_server [--extra-buffers BOOL] ARGS``: llama-cpp-python's
OpenAI-compatible server (``python -m llama_cpp.server ARGS``), unchanged except for one
model-loading switch the server does not expose.

llama.cpp repacks weights into "extra buffer types" for the CPU it runs on; on a CPU
that announces Intel AMX, that means AMX tile instructions. On virtual machines that
announce AMX without enabling it (this project's machines) the server then dies with
SIGILL on the first request. ``--extra-buffers False`` (the default here) loads the
model without extra buffer types, which uses the plain AVX2/AVX-512 kernels instead.
"""
from __future__ import annotations

import sys


def _patch_model_params(extra_buffers: bool) -> None:
    import llama_cpp.llama_cpp as lib

    original = lib.llama_model_default_params

    def model_default_params():
        params = original()
        params.use_extra_bufts = extra_buffers
        return params

    lib.llama_model_default_params = model_default_params


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = False
    if "--extra-buffers" in argv:
        i = argv.index("--extra-buffers")
        extra = argv[i + 1].strip().lower() in ("1", "true", "yes")
        del argv[i:i + 2]
    _patch_model_params(extra)
    from llama_cpp.server.__main__ import main as server_main

    sys.argv = ["llama_cpp.server", *argv]
    server_main()


if __name__ == "__main__":
    main()
