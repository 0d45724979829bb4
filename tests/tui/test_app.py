"""The terminal UI's application driven in-process: keys from a pipe, a dummy screen."""

from __future__ import annotations

import asyncio
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tai_core.events import PromptRequested, RunFinished, TreeChanged
from tai_core.tui._app import TaiApp, shown
from tai_core.tui._state import UiState
from tests.tui.test_tree_view import tree_of


def drive(state: UiState, keys: list[str], *, after: Any = None) -> tuple[TaiApp, list[Any]]:
    """Run the app on ``state``, type ``keys`` one by one, each once the app has handled
    the one before (a loaded machine must not make a key arrive after the end), call
    ``after(app)``, and end it; the app and what it answered or cancelled."""
    said: list[Any] = []

    async def main() -> TaiApp:
        with create_pipe_input() as pipe:
            app = TaiApp(state, lambda: said.append("cancel"),
                         lambda prompt_id, answer: said.append((prompt_id, answer)),
                         input=pipe, output=DummyOutput())  # fmt: skip
            handled = [0]
            app.application.key_processor.after_key_press += lambda _: handled.__setitem__(
                0, handled[0] + 1
            )
            app.invalidate()
            running = asyncio.ensure_future(app.application.run_async())
            await asyncio.sleep(0.1)
            for count, key in enumerate(keys, 1):
                pipe.send_text(key)
                for _ in range(400):  # at most 20 s
                    if handled[0] >= count or running.done():
                        break
                    await asyncio.sleep(0.05)
            if after is not None:
                after(app)
            await asyncio.sleep(0.05)
            if not running.done() and not app.application.future.done():
                app.application.exit()
            await running
            return app

    return asyncio.run(main()), said


def test_tabs_moves_folds_and_leaving_once_the_run_ended() -> None:
    state = UiState("s")
    state.apply(TreeChanged("s", tree_of(2, 2)))
    app, said = drive(state, ["2", "\t", "1", "j", "k", " "])
    assert app.tab == 0 and app.tree.folded == {"in-0"}
    assert said == []
    state.apply(RunFinished("s", "", "", "", ()))
    app, said = drive(state, ["q"], after=lambda app: None)
    assert app.quitting and said == []


def test_q_while_the_run_goes_on_cancels_it() -> None:
    state = UiState("s")
    app, said = drive(state, ["q"])
    assert said == ["cancel"] and app.quitting


def test_a_confirm_dialog_answers_and_keys_go_to_it_first() -> None:
    state = UiState("s")
    state.apply(PromptRequested("s", "q1", "confirm", "Run rm -rf build?", (), False))
    app, said = drive(state, ["2", "y"])
    assert said == [("q1", True)] and app.tab == 0  # "2" went to the question, not the tabs


def test_a_select_and_an_input_dialog() -> None:
    state = UiState("s")
    state.apply(PromptRequested("s", "q1", "select", "Which?", ("a", "b"), "a"))
    _, said = drive(state, ["2"])
    assert said == [("q1", "b")]
    state.apply(PromptRequested("s", "q2", "input", "Name?", (), ""))
    _, said = drive(state, ["parser\r"])
    assert said == [("q2", "parser")]


def test_nothing_a_model_wrote_reaches_the_terminal_as_a_sequence() -> None:
    assert shown("ok\tand\nnext") == "ok\tand\nnext"
    assert shown("red \x1b[31m bell \x07") == "red \\x1b[31m bell \\x07"


def test_the_selected_nodes_content_follows_and_d_moves_there() -> None:
    state = UiState("s")
    state.apply(TreeChanged("s", tree_of(1, 2)))
    app, _ = drive(state, ["j", "d"])
    assert app.details.text == "block b-0-0 (status=ok)\n\ngo test ./pkg0"
    assert app.application.layout.has_focus(app.details)


def test_an_output_glyph_under_the_mouse_is_reversed() -> None:
    from prompt_toolkit.data_structures import Point
    from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

    from tai_core.events import RoundStarted, TextReceived

    state = UiState("s")
    for event in (RoundStarted("s", 1, 1), TextReceived("s", 1, "Hi")):
        state.apply(event)
    app, _ = drive(state, [])

    def move(handler: Any) -> None:
        handler(MouseEvent(Point(0, 0), MouseEventType.MOUSE_MOVE, MouseButton.NONE,
                           frozenset()))  # fmt: skip

    glyph, _title, text = app._output()
    move(glyph[2])
    assert app._output()[0][:2] == ("reverse", "▾ ")
    move(text[2])  # off the heading
    assert app._output()[0][0] == "class:section"


def test_output_and_logs_move_by_keys_and_output_folds_there() -> None:
    from tai_core.events import Notice, RoundStarted, TextReceived

    state = UiState("s")
    for event in (RoundStarted("s", 1, 1), TextReceived("s", 1, "one\ntwo\nthree"),
                  RoundStarted("s", 2, 1), TextReceived("s", 2, "four"),
                  *(Notice("s", "warning", f"w{i}") for i in range(5))):  # fmt: skip
        state.apply(event)
    app, _ = drive(state, ["2", "k", "k", "k", "k", "k", " ", "j"])
    assert state.sections[0].folded and not state.sections[1].folded
    assert app.cursor[1] == 1 and not app.following[1]  # on round 2's heading now
    app, _ = drive(state, ["3", "k", "k"])
    assert app.tab == 2 and app.cursor[2] == 2


def test_keys_typed_before_a_tab_is_drawn_move_from_its_end() -> None:
    """``3`` then ``k k`` faster than the screen is drawn: the Logs tab's lines were never
    counted, and the cursor moved in an empty tab, then jumped to the end."""
    from tai_core.events import Notice

    state = UiState("s")
    for index in range(5):
        state.apply(Notice("s", "warning", f"w{index}"))
    with create_pipe_input() as pipe:
        app = TaiApp(state, lambda: None, lambda *_: None, input=pipe, output=DummyOutput())
        app.show_tab(2)
        app.move(2, -1)
        app.move(2, -1)
    assert app.cursor[2] == 2 and not app.following[2]


def test_the_status_line_names_the_agent_the_turns_run_under() -> None:
    from tai_core.events import AgentActivated

    state = UiState("s")
    state.apply(AgentActivated("s", "plan", "flash", ("response",)))
    app = TaiApp(state, lambda: None, lambda prompt_id, answer: None, output=DummyOutput())
    line = "".join(text for _, text, *_ in app._status())
    assert " · /plan · flash · round 0" in line
    state.apply(AgentActivated("s", "", "pro", ("response", "shell")))
    assert "/plan" not in "".join(text for _, text, *_ in app._status())
