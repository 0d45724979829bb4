"""Any text: the library of the ``any`` context provider, of ingest and of checkpoints.

The provider (:data:`tai_text._provider.provider`, registered by the plugin distribution
``tai-context-any``) is the fallback: it applies everywhere and
is asked after the Go provider. It shows the files in focus whole, and the ``ingest``
kind (served by :mod:`._ingest`) lets the model fetch more — files, glob listings, web pages —
in the next round. Why it is shaped this way:

- **Git's ignore rules, through pathspec.** What a project ignores (build output, vendored
  trees, virtual environments) is exactly what a model should not be shown, and the
  project already says so in ``.gitignore``. Git's rules have corners (nested files, each
  relative to its directory; ``!`` negation; ``dir/`` matching directories only;
  ``**``; ``.git/info/exclude``) that a home-made matcher gets subtly wrong; ``pathspec``'s
  ``gitwildmatch`` implements them and is tested against git. Globs — focus patterns and
  ingest's ``<glob>`` — use the same matcher, so there is one pattern language.
- **A deterministic order.** Parts are keyed by their path relative to the working
  directory and the walk sorts names, so the same tree gives the same bytes whatever order
  the file system lists entries in, and editing one file changes only its part: the
  prompt prefix before it stays in the model provider's cache.
- **A budget with a closing list.** Whole files are the point of this provider, but a
  large tree would swamp the request. Files are added in path order until
  ``max_context_bytes`` is spent; from the first one that does not fit on, files are
  named in one closing part instead of being dropped silently, so the model knows they
  exist and can fetch the ones it needs with ``ingest``. Stopping at the first overflow
  (not skipping to smaller files) keeps the cut a prefix of the sorted list.
- **Secrets are withheld, and named.** Before a file is shown, ``request.secret`` (the
  ``tai_secret_file`` hook) judges its shown path, the path a symbolic link leads to
  (``notes -> ~/.aws/credentials`` is judged as the credentials it is), and then the
  bytes about to be sent. A withheld file costs no budget and is named in the prompt's
  closing list, so the model knows it exists; ingest refuses ``<file>`` of one with the
  reason and marks it in ``<glob>`` listings. Names are judged before reading, so a
  large secret (a Terraform state) is never read.
- **Ingest stays inside the project.** Paths resolve against the working directory;
  ``..`` escapes and symbolic links leading outside are refused with the reason, and the
  ``tai_path_policy`` hook may refuse more. Web fetches are bounded in size and time and
  return text only.

Modules: :mod:`._walk` (patterns, ignore rules, the walk), :mod:`._text` (text detection
and file markers), :mod:`._provider`, :mod:`._ingest` (the requests of an ingest block)
and :mod:`._fetch` (HTTP). ``pathspec``, ``httpx`` and the ingest modules are imported
only when used, so loading the plugin costs next to nothing at start-up.
"""
