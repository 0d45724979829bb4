"""tai's configuration: ``tai.toml`` files, found, checked and merged.

The schema is closed (an unknown key is an error naming file and key) and the merge is
positional (nearest file wins for scalars, lists concatenate), as in the original tai;
flags are applied over the merged result by the command line. See ``_load`` for the
search order and ``_schema`` for the keys.
"""

from tai_core.config._load import (
    FILE_NAMES,
    Config,
    ConfigError,
    config_directories,
    go_module_root,
    load_config,
    user_cache_dir,
    user_config_dir,
    user_data_dir,
)

__all__ = [
    "FILE_NAMES",
    "Config",
    "ConfigError",
    "config_directories",
    "go_module_root",
    "load_config",
    "user_cache_dir",
    "user_config_dir",
    "user_data_dir",
]
