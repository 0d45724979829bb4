"""What tai's block kinds share, as a library any kind may use (third parties' too).

:mod:`.common` holds the session-tree parameters every kind that makes a node accepts
(``parent``, ``name``) and the command sets kinds are offered in; :mod:`.run` runs a
command with a time limit in its own process group, keeping the head and tail of its
output; :mod:`.testrun` is what the test kinds (``go-test``, ``pytest``) share: their
base class, the arguments split from the body with refused options named, the run and
its answer. They live apart from the kinds because a kind is a distribution of its own
(``tai-kind-shell``, ``tai-kind-go-test``, ``tai-kind-pytest``, …): what two kinds
share cannot live in either, and tai-core keeps only the contracts.
"""
