"""tai-sandbox: isolation of a run and the policies for shell commands and paths.

It will implement ``tai_shell_policy`` and ``tai_path_policy`` and re-execute tai in a user
namespace on Linux, as a plugin of the group ``tai``. It registers nothing yet, so no
policy is claimed that is not enforced.
"""
