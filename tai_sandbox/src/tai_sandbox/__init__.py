"""tai-sandbox: isolation of a run, and the policies for shell commands and paths.

A model's output is untrusted code. Two layers stand between it and the user's machine,
each a plugin of the group ``tai``:

* **Isolation** (plugin ``sandbox``, :mod:`tai_sandbox.isolation`). On Linux, before a
  command that runs model output, tai moves itself into new user, mount, PID, UTS and IPC
  namespaces (the network is kept), without root. Inside, everything is read-only except
  the writable set of :mod:`tai_sandbox.paths` (working directory, Go toolchain
  directories, tai's configuration directory, fresh ``/tmp`` and ``/dev/shm``), and the
  paths that would run code later outside the sandbox (git hooks and configuration,
  editor task files, tai's configuration) are read-only even there. ``/proc`` and ``/dev``
  are fresh; every capability is dropped and ``no_new_privs`` is set, so nothing inside
  can undo the mounts. The same rules refuse change blocks (``tai_path_policy``) and tell
  context providers which files are read-only (:func:`is_writable`).
* **Shell policy** (plugin ``shell-policy``, :mod:`tai_sandbox.policy`). Every command is
  parsed by a real bash parser (tree-sitter-bash) and checked on its syntax tree, with
  strings given to ``sh -c``/``eval`` parsed again and wrappers (``env``, ``sudo``,
  ``xargs``, ``find -exec`` …) looked through: destructive patterns are always refused,
  and ``allowed_shell_commands`` narrows what runs to the listed commands.

Neither layer trusts the other: the policy catches what is plainly destructive before it
runs (also outside the sandbox, also where namespaces are refused), the sandbox contains
what no static check can see (a script, a build, an obfuscated command that slipped
through).

Why our own namespace code (``ctypes``, about 450 lines with the filesystem view) and not
bubblewrap: bubblewrap is a separate system package that is often missing (it is not
installed here) and would need exactly this code as a fallback anyway; it also starts a
new process image, while tai forks itself — already loaded, so entering costs
milliseconds instead of a second start of Python and every plugin (about 120 ms). The
kernel interface is small and stable (``unshare``, ``mount``, ``prctl``, ``capset``) and
the proof in the project's dependency notes showed it works as root and unprivileged.
Where the kernel refuses (AppArmor-restricted user namespaces, a multi-threaded process,
no Linux), tai warns once and runs unsandboxed; ``-no-sandbox`` and ``TAI_NO_SANDBOX=1``
skip it on purpose.
"""

from tai_sandbox.paths import is_writable

__all__ = ["is_writable"]
