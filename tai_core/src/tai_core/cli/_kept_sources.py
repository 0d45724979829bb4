"""Where :mod:`._kept_code` takes over compiling: one hook per source, each replacing one
function (or name) of a module the console script imports, and only when that function
has the shape this was written against.

* **attrs**: ``attr._make._compile_and_eval(script, globs, locs, filename)`` (attrs 24 to
  26). It is replaced as soon as ``attr._make`` has run, before the rest of the ``attr``
  package defines its own classes (its validators and converters are attrs classes too).
* **dataclasses**: the module compiles its methods with the builtin ``exec``; a module
  global of that name, which the module's own lookups find before the builtin, gives it
  one that compiles through the file (the standard library's dataclasses of 3.11 to 3.13).
* **re**: ``re._compiler.compile(p, flags)``, which ``re`` calls for a pattern it has not
  compiled in this process. The kept value is what that function hands to the C engine
  (``_sre.compile``): the final flags, the program, the group count and names. The engine
  checks a program before it takes it (``invalid SRE code``), so a spoilt entry is only
  compiled again.

Each compiles exactly as the function it replaces did — in particular without the
``from __future__`` features of this module (``dont_inherit``) — so what a class or a
pattern becomes does not depend on whether the file held it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from types import CodeType, ModuleType
from typing import Any

from tai_core.cli._kept_code import Kept

#: The argument names of ``attr._make._compile_and_eval`` this replaces (attrs 24 to 26).
_ATTRS_SIGNATURE = ("script", "globs", "locs", "filename")

#: attrs' file names for the methods of a class and for its hash's type literal.
_METHODS = "<attrs generated methods "
_HASH = "<attrs generated hash "
_TYPE_HASH = "TYPE_HASH"

#: The Python versions whose ``re`` and ``dataclasses`` this was written against.
_STDLIB_VERSIONS = ((3, 11), (3, 12), (3, 13))


def hook_all(kept: Kept) -> list[str]:
    """Hook every source of this interpreter that can be; the names of those hooked (attrs
    and dataclasses count when they will be hooked at their import)."""
    return [name for name, hook in _HOOKS.items() if hook(kept)]


def _compiled(source: str, filename: str) -> CodeType:
    """``source`` compiled as ``exec`` compiles it for the modules hooked here, which have
    no ``from __future__`` imports: without this module's."""
    return compile(source, filename, "exec", dont_inherit=True)


def _code(value: object) -> CodeType:
    """``value`` when it is code; :class:`TypeError` otherwise (a spoilt entry)."""
    if type(value) is not CodeType:
        raise TypeError("not code")
    return value


# -- attrs -------------------------------------------------------------------------------


def _hook_attrs(kept: Kept) -> bool:
    make = sys.modules.get("attr._make")
    if make is not None:
        return _replace_attrs_compile(kept, make)
    _after_import("attr._make", lambda module: _replace_attrs_compile(kept, module))
    return True


def _replace_attrs_compile(kept: Kept, make: ModuleType) -> bool:
    original = getattr(make, "_compile_and_eval", None)
    code = getattr(original, "__code__", None)
    if code is None or code.co_argcount != len(_ATTRS_SIGNATURE):
        return False
    if code.co_varnames[: len(_ATTRS_SIGNATURE)] != _ATTRS_SIGNATURE:
        return False

    def compile_and_eval(script: str, globs: dict[str, Any] | None,
                         locs: Any = None, filename: str = "") -> None:  # fmt: skip
        key = ("attrs", _without_type_hash(script, filename), filename)
        eval(kept.get(key, lambda: _compiled(script, filename), _code), globs, locs)

    make._compile_and_eval = compile_and_eval  # type: ignore[attr-defined]
    return True


def _without_type_hash(script: str, filename: str) -> str:
    """``script`` with the per-process literal of its class's type hash taken out."""
    if not filename.startswith(_METHODS) or not filename.endswith(">"):
        return script
    name = filename[len(_METHODS) : -1]
    base, dash, count = name.rpartition("-")  # attrs numbers a repeated name "Name-1"
    if dash and count.isdigit():
        name = base
    return script.replace(str(hash(f"{_HASH}{name}>")), _TYPE_HASH)


# -- dataclasses -------------------------------------------------------------------------


def _hook_dataclasses(kept: Kept) -> bool:
    if sys.version_info[:2] not in _STDLIB_VERSIONS:
        return False
    module = sys.modules.get("dataclasses")
    if module is not None:
        _give_exec(kept, module)
    else:
        _after_import("dataclasses", lambda module: _give_exec(kept, module))
    return True


def _give_exec(kept: Kept, module: ModuleType) -> None:
    import builtins

    def exec_kept(source: Any, names: Any = None, scope: Any = None) -> None:
        if type(source) is not str or names is None:  # not the module's use: as it was
            caller = sys._getframe(1)
            builtins.exec(source, caller.f_globals if names is None else names,
                          caller.f_locals if scope is None else scope)  # fmt: skip
            return
        made = kept.get(("exec", source, "<string>"), lambda: _compiled(source, "<string>"), _code)
        builtins.exec(made, names, scope)

    module.exec = exec_kept  # type: ignore[attr-defined]


# -- re ----------------------------------------------------------------------------------


def _hook_re(kept: Kept) -> bool:
    if sys.version_info[:2] not in _STDLIB_VERSIONS:
        return False
    import _sre
    import re._compiler as compiler
    import re._parser as parser

    original = compiler.compile
    if original.__code__.co_varnames[:2] != ("p", "flags") or not hasattr(compiler, "_code"):
        return False
    debug = compiler.SRE_FLAG_DEBUG

    def program(pattern: str | bytes, flags: int) -> tuple[Any, ...]:
        """What ``re._compiler.compile`` hands the engine for ``pattern``."""
        parsed = parser.parse(pattern, flags)
        code = [int(word) for word in compiler._code(parsed, flags)]  # some are named ints
        names = {name: int(index) for name, index in parsed.state.groupdict.items()}
        by_index: list[str | None] = [None] * parsed.state.groups
        for name, index in names.items():
            by_index[index] = name
        return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, names,
                tuple(by_index))  # fmt: skip

    def compile_kept(p: Any, flags: int = 0) -> Any:
        if type(p) not in (str, bytes) or flags & debug:  # a parsed pattern, or debugging
            return original(p, flags)
        flags = int(flags)

        def engine(made: Any) -> Any:
            if type(made) is not tuple or len(made) != 5:
                raise TypeError("not a program")
            return _sre.compile(p, *made)

        return kept.get(("re", p, flags), lambda: program(p, flags), engine)

    compiler.compile = compile_kept
    return True


_HOOKS: dict[str, Callable[[Kept], bool]] = {
    "attrs": _hook_attrs,
    "dataclasses": _hook_dataclasses,
    "re": _hook_re,
}


# -- after an import ---------------------------------------------------------------------


class _AfterImport:
    """A finder that, when ``name`` is imported, lets the usual finders find it and has its
    loader call ``then(module)`` right after the module's code ran (before whatever
    imported it goes on); it removes itself at that first import."""

    def __init__(self, name: str, then: Callable[[ModuleType], object]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:  # as the import system would have gone on
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader, name, then = spec.loader, self.name, self.then
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module: ModuleType) -> None:
            if module.__name__ != name:  # a loader shared by modules: not this one
                run(module)
                return
            del loader.exec_module  # the loader's own again
            run(module)
            then(module)

        with contextlib.suppress(AttributeError):  # a loader without instance attributes
            loader.exec_module = exec_module
        return spec


def _after_import(name: str, then: Callable[[ModuleType], object]) -> None:
    sys.meta_path.insert(0, _AfterImport(name, then))
