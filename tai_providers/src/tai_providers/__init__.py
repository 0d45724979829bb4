"""tai-providers: the model providers of tai, each a plugin of its own.

Each provider (Gemini, OpenAI-compatible services, Azure, Bedrock, Ollama, …) will be its
own module registered through its own entry point in the group ``tai`` with
``tai_register_providers``, exactly as a third-party provider is. The OpenAI-compatible and
Gemini protocols are spoken directly over HTTP; litellm is imported only for the providers
that need it, never at start-up. This distribution registers no provider yet: ``tai
plugins`` says so rather than pretending.
"""
