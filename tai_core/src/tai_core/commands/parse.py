"""``tai parse``: what tai makes of a reply, block by block, without running anything.

For plugin authors and for anyone puzzled by a model's output: the reply goes through the
same incremental parser and the same ``tai_block_parsed``/``tai_validate_block`` hooks as
in a run, and each block is listed with its kind's verdict. Exit status 1 when anything
would have been fed back as an error, so the command can guard a test.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import click

from tai_core.blocks import Block, BlockParseError, BlockParser, misdelimited
from tai_core.plugins import PluginHost

_READ_SIZE = 1 << 16


def _header(block: Block) -> str:
    params = ", ".join(
        f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in block.params.items()
    )
    kind = block.kind or "(kindless)"
    return f"{kind}({params})" if params else kind


def _verdict(host: PluginHost, block: Block) -> tuple[str, list[str]]:
    from tai_core.plugins._failures import PluginHookError, validation_problems

    kind = host.registry.block_kinds.get(block.kind)
    try:
        host.pm.hook.tai_block_parsed(block=block, kind=kind)
    except PluginHookError as error:  # a run would fail the attempt
        return "invalid", [str(error)]
    if kind is None:
        return "unknown", []
    problems = validation_problems(host.pm.hook, block, kind)
    return ("invalid" if problems else "ok"), problems


def parse_stream(stream: IO[str]) -> list[Block | BlockParseError]:
    """Every result of parsing ``stream``, read and fed in pieces as a reply streams."""
    parser = BlockParser()
    results: list[Block | BlockParseError] = []
    while chunk := stream.read(_READ_SIZE):
        results.extend(parser.feed(chunk))
    results.extend(parser.finish())
    return results


@click.command("parse")
@click.argument("reply", type=click.File("rb"), default="-")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
@click.pass_obj
def parse_command(app: Any, reply: IO[bytes], as_json: bool) -> None:
    """Parse a model's REPLY (a file, or - for stdin) and check every block.

    Nothing is run. Each block is reported with its kind's verdict: ok, invalid (with the
    problems) or unknown (no installed plugin registers that kind); a line that opens a
    block of a known kind without a delimiter of two Chinese characters (read as text) is
    reported as malformed. Exits with 1 when a block is malformed, unclosed or invalid, or
    the reply is not UTF-8.
    """
    import io

    from tai_core._nearest import did_you_mean
    from tai_core.textfile import NotUTF8Error, decode_utf8

    # Bytes, decoded here: text mode would turn each \r into \n (universal newlines).
    name = "standard input" if reply.name == "<stdin>" else str(reply.name)
    if reply.name == "<stdin>" and reply.isatty():  # `tai parse` alone would seem to hang
        click.echo("tai: reading the reply from the terminal; end it with Ctrl-D "
                   "(tai parse FILE reads a file)", err=True)  # fmt: skip
    try:
        text = decode_utf8(reply.read(), name)
    except NotUTF8Error as error:
        raise click.ClickException(str(error)) from None
    host: PluginHost = app.host
    entries: list[dict[str, Any]] = []
    # the listing's line of each parse error, by its entry's place (the line named once)
    unusable: dict[int, str] = {}
    results = parse_stream(io.StringIO(text, newline=""))
    blocks = [result for result in results if isinstance(result, Block)]
    results += misdelimited(text, host.registry.block_kinds, blocks)  # read as text
    for result in sorted(results, key=lambda result: result.line):
        if isinstance(result, BlockParseError):
            unusable[len(entries)] = f"line {result.line}: {result.message(at_line=False)}"
            entries.append(
                {
                    "line": result.line,
                    "status": result.reason,
                    "kind": result.kind,
                    "delimiter": result.delimiter,
                    "detail": result.detail,
                    "message": result.message(),
                }
            )
            continue
        status, problems = _verdict(host, result)
        entries.append(
            {
                "line": result.line,
                "status": status,
                "kind": result.kind,
                "delimiter": result.delimiter,
                "params": dict(result.params),
                "body": result.body,
                "problems": problems,
                "header": _header(result),
            }
        )
    failed = [entry for entry in entries if entry["status"] not in ("ok", "unknown")]
    if as_json:
        click.echo(json.dumps({"results": entries}, indent=2, ensure_ascii=False))
    else:
        from tai_core._printable import shown_on

        shown = shown_on(sys.stdout)  # a reply's header must not drive the terminal
        for index, entry in enumerate(entries):
            if index in unusable:
                click.echo(shown(unusable[index]))
            elif entry["status"] == "invalid":
                click.echo(shown(f"line {entry['line']}: {entry['header']} — invalid:"))
                for problem in entry["problems"]:
                    click.echo(shown(f"    {problem}"))
            elif entry["status"] == "unknown":
                near = did_you_mean(entry["kind"], host.registry.block_kinds)
                click.echo(shown(
                    f"line {entry['line']}: {entry['header']} — unknown kind "
                    f"(no installed plugin registers it{'; ' + near if near else ''})"
                ))  # fmt: skip
            else:
                click.echo(shown(f"line {entry['line']}: {entry['header']} — ok"))
        blocks = sum(1 for entry in entries if "header" in entry)
        unknown = sum(1 for entry in entries if entry["status"] == "unknown")
        # an unknown kind is no problem of the reply (a plugin not installed here may run
        # it), but a run here would pass it over: the count says so
        of_unknown = f", {unknown} of a kind no plugin here runs" if unknown else ""
        click.echo(f"{blocks} block(s), {len(failed)} problem(s){of_unknown}")
    if failed:
        raise SystemExit(1)
