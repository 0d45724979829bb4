"""What tai's model providers share; each provider is a distribution of its own.

Every provider is one object in a distribution of its own (``tai-provider-deepseek``:
``deepseek = "tai_provider_deepseek:deepseek.plugin"``), registered through its entry point
in the group ``tai`` with ``tai_register_providers``, exactly as a third-party provider is,
so ``-p no:NAME`` switches off any one of them and installing one provider pulls only its
own dependencies (litellm comes with azure, bedrock and litellm alone). This kit holds
what they share: the provider base and model data, the faults, HTTP, and the call paths.
The objects are light: loading them imports neither an HTTP client nor the model
contract; ``spec`` and ``stream`` import what they need on first use, so ``tai --help``
and ``tai plugins`` stay fast.

Why the protocols are spoken as they are:

* **OpenAI-compatible and Gemini, spoken directly** (:mod:`._openai_wire`,
  ``tai_provider_gemini._wire``). Twelve of the services speak OpenAI's chat-completions
  protocol and Gemini its own; both are a JSON POST and a server-sent-event stream.
  Done directly, a streamed chunk costs ~0.03 ms over loopback
  (``benchmarks/provider_stream.py``; litellm: ~1 ms, after a 4 s import), and every detail
  tai relies on — reasoning fields, cached and reasoning token counts, finish reasons,
  the exact body — stays in view and under test.
* **Our own HTTP/1.1 over h11, connections kept** (:mod:`._transport`, :mod:`._http`):
  httpx cost a quarter of ``tai next``'s time to its request (~100 ms and 130 modules for
  HTTP/2, a synchronous twin, anyio) for one streamed POST; h11 — the state machine httpx
  speaks through — over asyncio's streams does that POST, with proxies, TLS from
  :mod:`._tls` (built ahead on a thread, asked for only by ``https``) and kept
  connections.
* **litellm only where the protocol needs more, and only lazily** (:mod:`._litellm_wire`):
  Azure's deployments and API versions, Bedrock's signing and binary event-stream, and
  any model string litellm knows (type ``litellm``). It is imported on the first call of
  such a model, offline (its bundled price table, no downloads) and quiet.
* **Faults are values** (:mod:`._faults`): every failure is one ``ProviderError`` line
  naming provider, model, status and the provider's own message, marked retryable or
  not. Providers never retry; :func:`tai_core.models.generate` does, because only it
  knows whether output was already produced.
* **Prices and context windows are bundled** (``data/models.json``, :mod:`._data`),
  hand-written and read on first use, never fetched.

Families: :mod:`.openai_compatible` (the class of openai, deepseek, huoshan, baidu,
tencent, aliyun, zhipu, vercel, nvidia, openrouter, ollama, opencode-go) and
:mod:`.via_litellm` (the class of azure, bedrock, litellm); gemini's protocol and replay's
transcripts live in their own distributions, the only users of each.
"""
