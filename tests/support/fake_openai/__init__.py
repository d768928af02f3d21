"""A local OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It answers every protocol's prompt with a well-formed, deterministic reply, and can
inject faults per prompt: put a marker in the prompt text and map it to the faults
its successive attempts get (``faults={"FAULT-A": ["429", "500"]}``: the first
attempt gets a 429, the second a 500, the third a normal reply).

Faults: ``429`` (with ``retry-after``), ``500``, ``503``, ``slow`` (replies after
``slow_s`` seconds, longer than the client's timeout), ``malformed`` (a 200 whose
body is not JSON), ``truncated_body`` (the connection closes half-way through the
body), ``length`` (a reply cut by max_tokens: finish_reason ``length``), ``refuse``
(a polite refusal), ``context`` (400 context_length_exceeded), ``null_content`` /
``empty_content`` (a 200 whose message content is null / ""), ``429_headers`` (a 429
with only OpenAI's ``x-ratelimit-*`` headers, reset ``ratelimit_reset``),
``429_gateway`` (a 429 with only LiteLLM's ``llm_provider-retry-after``).

Answers as OpenAI's API does (shapes checked against the ``openai`` SDK's types):

- ``reasoning_models``: models that reject ``temperature`` (other than 1) and
  ``max_tokens`` with OpenAI's 400 ``unsupported_value`` / ``unsupported_parameter``
  bodies, accept ``max_completion_tokens`` and ``reasoning_effort``, spend reasoning
  tokens (``reasoning_tokens`` per effort) out of that budget and reply with empty
  content and ``finish_reason: length`` when the budget runs out;
- usage with ``prompt_tokens_details.cached_tokens`` (the prefix shared with an
  earlier prompt, in blocks of ``prompt_cache_block`` tokens once a prompt has
  ``prompt_cache_min_tokens``) and ``completion_tokens_details.reasoning_tokens``;
- ``logprobs: true`` / ``top_logprobs: k``: ``choices[0].logprobs.content[]`` as OpenAI's
  ``ChatCompletionTokenLogprob`` (token, logprob, bytes, up to k ``top_logprobs``), made
  by ``logprobs(reply, k)`` (default :func:`default_logprobs`); a reasoning model refuses
  ``logprobs`` and ``top_logprobs`` with OpenAI's 400 ``unsupported_parameter`` body;
- ``gateway="litellm"``: LiteLLM's proxy answers instead of OpenAI's for a wrong
  key (400 "No connected db.") and an unknown model (400 "Invalid model name ...");
- ``/v1/files`` (upload, retrieve, content) and ``/v1/batches`` (create, retrieve,
  list, cancel): a batch is ``validating`` until its first retrieve, ``in_progress``
  until its ``batch_polls``-th, then final (with ``batch_delay_s``: ``in_progress`` from
  its first retrieve until that many seconds after ``batches.create``, however often it
  is polled); the Batch objects carry the SDK's timestamps (``created_at``,
  ``in_progress_at``, ``finalizing_at``, ``completed_at`` / ``failed_at`` /
  ``expired_at`` / ``cancelled_at``, Unix seconds) and ``batch_events`` lists the same
  moments as float times ``(time, batch id, status)``; ``batch_outcomes`` (a queue, one per
  batch created) picks ``completed``, ``expired`` (half the lines answered, the rest
  ``batch_expired`` in the error file) or ``failed`` (validation errors), ``token_limit`` (failed: the model's enqueued-token limit). Lines are
  answered like live requests (faults included): 200s go to the output file, others
  to the error file.

Where each part lives: ``server.py`` (settings, records, lifecycle, routes), ``chat.py`` (a chat
request: checks, fault, reply, usage), ``errors.py`` (OpenAI's error bodies and the request checks, in
order), ``faults.py`` (``FAULTS``: one small handler per fault mode), ``files.py``, ``batches.py``,
``replies.py`` (reply text, logprobs, token counts) and ``wire.py`` (writing a response).
"""
from __future__ import annotations

from .faults import FAULTS, Fault
from .replies import REASONING_TOKENS, default_logprobs, default_reply, logprob_item
from .server import FakeOpenAIServer

__all__ = ["FAULTS", "REASONING_TOKENS", "FakeOpenAIServer", "Fault", "default_logprobs", "default_reply", "logprob_item"]
