"""One change block applied to the store: the operation chosen by the op and the file type.

A change never touches the disk: it reads the file through the store and writes the new
text back into it, so the same function serves a streaming reply (each block applied as
it arrives) and ``tai patch``. Every failure becomes one :class:`ChangeError` whose message
names the operation, the target and the file; when the failure concerns a file's content,
an error log with the whole context is written too (:mod:`._error_log`).

Secret files are refused before anything else (:func:`refuse_secrets`). A change block's
failures quote the file — the closest line to a ``find`` that is missing, the declarations
a Go file does have, an error log in the working tree that a later ``ingest`` can fetch —
so a block on a file the ``tai_secret_file`` hook withholds would leak, through the retry
prompt, exactly what the context providers, ``-file`` and ``ingest`` keep back. The check
asks about every path the block names (the file; a RENAME's target too), by name and by
the content the run sees, before any operation reads the file, and the refusal is one line
that names the file and the reason, never its content. It lives here, in the one function
both a run (through the change kind's ``apply``) and ``tai patch`` call, and it asks the
store, because the store is the one thing both are handed: whoever opens it gives it the
hook and the configuration (``FileStore.for_run``), as it gives the path policy.
The error log asks again before it writes (:meth:`ChangeError.logged`): belt and braces.
"""

from __future__ import annotations

from tai_changes._decl import ADD_OPS, DECL_OPS, EDGES, EditError
from tai_changes._error_log import try_error_log
from tai_changes._format import FormatError, format_go
from tai_changes._go_edit import edit_go, valid_go
from tai_changes._py_edit import edit_python, is_python, valid_write
from tai_changes._splice import encode
from tai_changes._text import TextEditError, edit_edge, edit_text, line_end
from tai_core import Block
from tai_core.store import ApplyError, FileStore, StoreError, shown_path

TEXT_OPS = ("REPLACE", "INSERT_BEFORE", "INSERT_AFTER")


class ChangeError(ApplyError):
    """A change block that failed; the message is one line naming op, target and file.

    ``log`` is the name of the error log written for it, if any.
    """

    def __init__(self, op: str, target: str, file: str, reason: str) -> None:
        self.op, self.target, self.file = op, target, file
        self.reason = " ".join(reason.split())
        self.log: str | None = None
        super().__init__(self._message())

    def _message(self) -> str:
        parts = (self.op or "change", shown_path(self.target) if self.target else "")
        what = " ".join(part for part in parts if part)
        where = shown_path(self.file)
        text = f"{what} in {where}: {self.reason}" if self.file else f"{what}: {self.reason}"
        return text + (f" (details in {self.log})" if self.log else "")

    def logged(
        self,
        store: FileStore,
        *,
        find: str = "",
        body: str = "",
        source: str | None,
        modified: str | None,
    ) -> ChangeError:
        """Write the error log of this failure into ``store``'s working directory when there
        is file content to show (the file before, or the text the change produced) and the
        file is no secret (by its name, its content in the store, ``source`` and
        ``modified``: the log lies in the tree, where ``ingest`` can read it); returns
        ``self``."""
        if source is None and modified is None:
            return self
        if _secret(store, self.file, source, modified):
            return self
        path = try_error_log(
            store.root,
            operation=self.op,
            target=self.target,
            file_path=self.file,
            find=find,
            change_block=body,
            source_file=source or "",
            modified_file=modified or "",
            error=self.reason,
        )
        if path is not None:
            self.log = path.name
            self.args = (self._message(),)
        return self


def _secret(store: FileStore, path: str, *texts: str | None) -> bool:
    """Whether ``path`` is withheld as a secret, by the store's check or by any of
    ``texts`` (also when the path cannot be judged: then nothing is shown)."""
    try:
        key = store.resolve(path)
        data = [text.encode("utf-8", "surrogateescape") for text in texts if text]
        reasons = (store.withheld(path), *(store.secret(key, item) for item in data))
    except StoreError:
        return True
    return any(reasons)


def refuse_secrets(store: FileStore, op: str, target: str, path: str) -> None:
    """Raise a :class:`ChangeError` when the block names a file withheld as a secret: its
    ``file-path``, or a RENAME's ``target`` (see the module docstring)."""
    for name, which in ((path, ""), (target if op == "RENAME" else "", "the target ")):
        reason = store.withheld(name) if name else None
        if reason:
            shown = f"{which}{shown_path(store.resolve(name))} is " if which else ""
            raise ChangeError(
                op, target, path,
                f"{shown}withheld as a secret ({reason}); change blocks may not read or "
                "write it",
            )  # fmt: skip


def is_go(key: str) -> bool:
    """Whether a path is edited as Go source."""
    return key.endswith(".go")


def _check_op(key: str, op: str, target: str) -> None:
    """Refuse an op the file's type does not support (before its content is read)."""
    if is_go(key) and op in TEXT_OPS:
        raise TextEditError(
            "Go files do not support text-level operations: use MODIFY, ADD_BEFORE, "
            "ADD_AFTER or DELETE with a declaration as target"
        )
    if (
        not (is_go(key) or is_python(key))
        and op in DECL_OPS
        and not (op in ADD_OPS and target in EDGES)
    ):
        raise TextEditError(
            f"{op} of a declaration works in Go and Python files only; in other files use WRITE, "
            "REPLACE, INSERT_BEFORE, INSERT_AFTER, ADD_BEFORE/ADD_AFTER with BEGIN or END, "
            "or DELETE with target *"
        )


def _edit(key: str, text: str | None, *, op: str, target: str, find: str, body: str) -> str:
    if is_go(key):
        return edit_go(text, op, target, body)
    if op in TEXT_OPS:
        return edit_text(text, op, find, body)
    if is_python(key):
        return edit_python(text, op, target, body, key)
    return edit_edge(text, target, body)


def _write(store: FileStore, path: str, key: str, body: str) -> FileStore:
    """WRITE: a Go file must be valid Go, a Python file valid Python (unless the file it
    replaces was not, see :func:`~tai_changes._py_edit.valid_write`)."""
    text = body + line_end(body) if body else ""
    if is_go(key):
        return store.write(path, valid_go(encode(text)))
    if is_python(key):
        store, before = store.load(path)
        return store.write(path, valid_write(text, before))
    return store.write(path, text)


#: The name of the change kind's finisher on a store (see ``FileStore.with_finisher``).
FINISHER = "tai_changes: format"


def apply_change(store: FileStore, block: Block) -> FileStore:
    """``store`` with the change ``block`` applied; raises :class:`ChangeError`.

    The store returned carries :func:`finish_changes` as a finisher, so its flush formats
    the Go and Python files changed (``store.finished()`` does it earlier, to fail
    sooner).
    """
    return _apply(store, block).with_finisher(FINISHER, finish_changes)


def _apply(store: FileStore, block: Block) -> FileStore:
    params = block.params
    op = params.get("op", "").strip()
    target = params.get("target", "").strip()
    path = params.get("file-path", "").strip()
    source: str | None = None
    try:
        if op not in (*DECL_OPS, *TEXT_OPS, "WRITE", "RENAME"):
            raise TextEditError(f"unknown op {op!r}" if op else "unparseable change block: no op")
        key = store.resolve(path)
        refuse_secrets(store, op, target, path)
        if op == "RENAME":
            return store.rename(path, target)
        if op == "DELETE" and target == "*":
            return store.delete(path)
        if op == "WRITE":
            return _write(store, path, key, block.body)
        _check_op(key, op, target)
        store, source = store.load(path)
        new = _edit(key, source, op=op, target=target, find=params.get("find", ""), body=block.body)
        return store.write(path, new)
    except (EditError, TextEditError) as error:
        failure = ChangeError(op, target, path, error.reason)
        modified = error.modified if isinstance(error, EditError) else None
        find = params.get("find", "")
        raise failure.logged(
            store, find=find, body=block.body, source=source, modified=modified
        ) from None
    except ChangeError:
        raise
    except StoreError as error:
        raise ChangeError(op, target, path, str(error)) from None


def finish_changes(store: FileStore) -> FileStore:
    """The round's changes made final before they are shown or flushed: Go files formatted
    (goimports), Python files with the formatter their project declares
    (:mod:`tai_changes._pyformat`). Raises :class:`ChangeError` naming the file goimports
    refused."""
    from tai_changes._pyformat import format_python
    from tai_changes.goimports import ToolError

    try:
        return format_python(format_go(store))
    except FormatError as error:
        failure = ChangeError("format", "", error.path, error.message)
        source = store.base[error.path].text if error.path in store.base else None
        raise failure.logged(store, source=source, modified=error.text) from None
    except ToolError as error:
        raise ChangeError("format", "", "", str(error)) from None
