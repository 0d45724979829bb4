"""tai's configuration: ``tai.toml`` files, found, checked and merged.

The schema is closed (an unknown key is an error naming file and key) and the merge is
positional (nearest file wins for scalars, lists concatenate), as in the original tai;
flags are applied over the merged result by the command line. See ``_paths`` for the
search order, ``_load`` for the merge and ``_schema`` for the keys; ``_launch_files`` keeps
what a start worked out for the next one. The names are imported
on first use (``tai_core._lazy``): the launch needs the paths without the rest.
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from tai_core.config._launch_files import launch_file, read_launch_file, write_launch_file
    from tai_core.config._load import Config, ConfigError, load_config
    from tai_core.config._paths import (
        FILE_NAMES,
        INSTRUCTIONS_FILE,
        LAUNCH_DIR,
        PROJECT_DIR,
        config_directories,
        config_files,
        go_module_root,
        project_directories,
        user_cache_dir,
        user_config_dir,
        user_data_dir,
    )

__all__ = [
    "FILE_NAMES",
    "INSTRUCTIONS_FILE",
    "LAUNCH_DIR",
    "PROJECT_DIR",
    "Config",
    "ConfigError",
    "config_directories",
    "config_files",
    "go_module_root",
    "launch_file",
    "load_config",
    "project_directories",
    "read_launch_file",
    "user_cache_dir",
    "user_config_dir",
    "user_data_dir",
    "write_launch_file",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.config._load": ["Config", "ConfigError", "load_config"],
        "tai_core.config._launch_files": ["launch_file", "read_launch_file",
                                          "write_launch_file"],
        "tai_core.config._paths": ["FILE_NAMES", "INSTRUCTIONS_FILE", "LAUNCH_DIR",
                                   "PROJECT_DIR", "config_directories",
                                   "config_files", "go_module_root", "project_directories",
                                   "user_cache_dir",
                                   "user_config_dir", "user_data_dir"],
    },
)  # fmt: skip
