"""tai-sandbox: isolation of a run, and the policies for shell commands, paths and secrets.

A model's output is untrusted code. The rule to test against is *write now, run later*:
nothing a run writes may act outside it — at the user's next ``git``, the next ``tai``
start, the next ``go build``. Three layers stand between model output and the user's
machine, each a plugin of the group ``tai``:

* **Isolation** (plugin ``sandbox``, :mod:`tai_sandbox.isolation`). On Linux, before a
  command that runs model output, tai moves itself into new user, mount, PID, UTS and IPC
  namespaces (the network is kept: tai talks to the model from inside), without root.
  Inside, everything is read-only except the writable set of :mod:`tai_sandbox.paths`
  (the working directory, tai's data and cache directories, a fresh ``/tmp`` and
  ``/dev/shm``); Go's caches are overlaid, their writes dropped at the end (where they are,
  ``go env`` says once and the launch directory keeps: ``_go_env``). Inside the
  writable set, what would act later — all of ``.git``, editor task files, tai's
  configuration, journals and installation, its helper programs — is read-only, and what
  is created under those names is swept away (``_sweep``). A seccomp filter refuses
  set-uid files (``_seccomp``); every capability is dropped and ``no_new_privs`` set, so
  nothing inside can undo the mounts; the sandbox dies with the tai the user started
  (``_process``). The same rules refuse change blocks (``tai_path_policy``) and tell
  context providers which files are read-only (:func:`is_writable`).
* **Shell policy** (plugin ``shell-policy``, :mod:`tai_sandbox.policy`). Every command is
  parsed by a real bash parser (tree-sitter-bash) and checked on its syntax tree, with
  strings given to ``sh -c``/``eval``/``trap``, git's command-running settings and the
  code of interpreters' one-liners read again, and wrappers (``env``, ``sudo``,
  ``xargs``, ``find -exec`` …) looked through: destructive patterns are always refused,
  and ``allowed_shell_commands`` narrows what runs to the listed commands.
* **Secrets** (plugin ``secrets``, :mod:`tai_sandbox.secret_scan`): files whose content
  holds a credential are withheld from the model (the name rules live in the core).

Neither isolation nor policy trusts the other: the policy catches what is plainly
destructive before it runs (also with ``-no-sandbox``), the sandbox contains what no
static check can see (a script, a build, an obfuscated command that slipped through).

*Fail closed.* When the sandbox cannot be set up (AppArmor-restricted user namespaces, a
multi-threaded process, no Linux, a mount that cannot be made read-only), the command
stops with one line saying why (``tai_core.IsolationError``); ``-no-sandbox`` and
``TAI_NO_SANDBOX=1`` skip it on purpose. Never a warned fallback.

Why our own namespace code (``ctypes``) and not bubblewrap: bubblewrap is a separate
system package that is often missing (it is not installed here) and would need exactly
this code as a fallback anyway; it also starts a new process image, while tai forks
itself — already loaded, so entering costs milliseconds instead of a second start of
Python and every plugin (about 120 ms). The kernel interface is small and stable
(``unshare``, ``mount``, ``prctl``, ``capset``, ``seccomp``) and works as root and
unprivileged.
"""

from tai_sandbox.paths import is_writable

__all__ = ["is_writable"]
