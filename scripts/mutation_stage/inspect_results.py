"""Prints every mutant of the staged files named as arguments, one JSON line each: name,
status and the diff mutmut shows for it (read with mutmut's own code, in one process;
run in the staged tree by scripts/mutation.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code

for path in sys.argv[1:]:
    data = SourceFileMutationData(path=Path(path))
    data.load()
    for name, code in data.exit_code_by_key.items():
        status = status_by_exit_code[code]
        diff = "" if status == "killed" else get_diff_for_mutant(name, path=path)
        print(json.dumps([name, status, diff]))
