"""The testing kit for plugin authors: run a real session against a scripted model.

A plugin's own tests should exercise it the way tai does — registered on a plugin host,
called by the pipeline during a session, its blocks parsed from a model's reply and their
results fed back — without a network, a key or tai's own test suite. This package gives
that, as pytest's ``pytester`` gives it to pytest plugins:

* :class:`ScriptedModel` — a provider that answers each call with the next scripted
  reply (text, thoughts, usage, how it finished) or fails it on demand (:class:`Fault`),
  and keeps every request it received;
* :func:`run_session` — one task through the real runtime and pipeline on a host, in
  process; returns a :class:`SessionRun` with the requests the model received, every
  event, the session tree and the final state;
* the pytest plugin (:mod:`tai_core.testing.plugin`, registered through the ``pytest11``
  entry point, so installing tai-core is enough): fixtures ``tai_host`` (the installed
  plugins loaded), ``tai_plugin`` (register a plugin for one test, unregistered after it),
  ``tai_model`` (a scripted model on the host), ``tai_project`` (a temporary project
  from a mapping of files) and ``tai_run`` (:func:`run_session` bound to the host).

Only the public names here are the kit's contract; it drives tai's internals so that a
plugin's tests do not have to.
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from tai_core.testing._model import Fault, Reply, ScriptedModel
    from tai_core.testing._session import SessionRun, project, run_session

__all__ = ["Fault", "Reply", "ScriptedModel", "SessionRun", "project", "run_session"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.testing._model": ["Fault", "Reply", "ScriptedModel"],
        "tai_core.testing._session": ["SessionRun", "project", "run_session"],
    },
)
