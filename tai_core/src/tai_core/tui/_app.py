"""The prompt_toolkit application: the tabs, the status line, the keys and the mouse.

Tree (the session tree, expanded and focused at start, the selected node's content below
it), Output (the model's output, one foldable section per round and attempt, each folded
until its first content; thoughts only with ``-thoughts``) and Logs (warnings, retries,
errors). Keys: ``1``/``2``/``3`` or Tab switch tabs; arrows, ``j``/``k``, Page Up/Down
move; Enter or Space folds the selected node; ``q`` leaves once the run has ended, and
``q`` or Ctrl-C while it runs cancels it and leaves when it has stopped (as Ctrl-C does in
the plain command line: exit status 130). A block's question comes as a dialog above the
status line: ``y``/``n`` (Enter: its default), a number for a choice, or a line to type.
Colours follow ``NO_COLOR`` (prompt_toolkit reads it); every text from the model or a
block is shown as printable characters only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from tai_core._printable import printable
from tai_core._printable import printable_lines as shown
from tai_core.tui._state import UiState
from tai_core.tui._tree import FOLDED, OPEN, TreeControl, TreeLayout

TABS = ("Tree", "Output", "Logs")

STYLE = Style.from_dict({
    "tab": "reverse", "tab.active": "bold", "tab.empty": "fg:ansibrightblack",
    "status": "reverse", "tree.selected": "bold underline", "tree.name": "bold",
    "tree.status.failed": "fg:ansired", "tree.status.ok": "fg:ansigreen",
    "tree.kind.error": "fg:ansired", "section": "bold", "thought": "italic fg:ansibrightblack",
    "log.warning": "fg:ansiyellow", "log.error": "fg:ansired", "details": "",
    "question": "bold", "question.hint": "fg:ansibrightblack", "prompt": "bold",
})  # fmt: skip


def _asking(app: TaiApp, kind: str) -> Condition:
    """True while ``app`` shows a question of ``kind``."""
    return Condition(lambda: getattr(app.state.question, "kind", "") == kind)


class TaiApp:
    """The UI of one session: ``state`` is read, ``cancel`` stops the run, ``respond``
    answers a block's question (its id, the answer)."""

    def __init__(
        self, state: UiState, cancel: Callable[[], None], respond: Callable[[str, Any], None],
        *, thoughts: bool = False, chat: Callable[[str], None] | None = None,
        **app_options: Any,
    ) -> None:  # fmt: skip
        self.state = state
        self.cancel = cancel
        self.respond = respond
        #: A chat's input (``tai ai``): each line typed goes to ``chat``.
        self.chat = chat
        self.entry = TextArea(height=1, multiline=False, prompt=">> ",
                              accept_handler=self._entered)  # fmt: skip
        self.answer = TextArea(height=1, multiline=False, prompt="> ",
                               accept_handler=self._typed)  # fmt: skip
        self.thoughts = thoughts
        self.tab = 0
        self.tree = TreeLayout()
        self._laid_out: Any = None
        self.quitting = False
        tree_control = TreeControl(self.tree, self.invalidate)
        tree_window = self.tree_window = Window(
            tree_control, wrap_lines=False, height=Dimension(min=3, weight=1)
        )
        #: The selected node's whole content, scrollable (``d`` moves there and back).
        self.details = TextArea(read_only=True, scrollbar=True, wrap_lines=True,
                                height=Dimension(min=3, preferred=12, max=12),
                                style="class:details")  # fmt: skip
        self._detailed: Any = None
        self.hovered_section: Any = None
        #: Output's and Logs' line count and the line of their cursor (which the window
        #: keeps in view); each follows the end while its cursor is on the last line.
        self.lines = {1: 0, 2: 0}
        self.cursor = {1: 0, 2: 0}
        self.following = {1: True, 2: True}
        self.headers: dict[int, Any] = {}
        output = self.output_window = self._pane(1, self._output)
        logs = self.logs_window = self._pane(2, self._logs)
        shown = [Condition(lambda index=index: self.tab == index) for index in range(3)]
        body = HSplit([
            ConditionalContainer(HSplit([tree_window, Window(height=1, char="─"), self.details]),
                                 shown[0]),
            ConditionalContainer(output, shown[1]),
            ConditionalContainer(logs, shown[2]),
        ])  # fmt: skip
        asking = Condition(lambda: self.state.question is not None)
        dialog = ConditionalContainer(
            HSplit([
                Window(height=1, char="═"),
                Window(FormattedTextControl(self._question), wrap_lines=True,
                       dont_extend_height=True),
                ConditionalContainer(self.answer, _asking(self, "input")),
            ]),
            asking,
        )  # fmt: skip
        chatting = Condition(lambda: self.chat is not None)
        root = HSplit([
            Window(FormattedTextControl(self._tabs), height=1),
            body,
            dialog,
            ConditionalContainer(HSplit([Window(height=1, char="─"), self.entry]), chatting),
            Window(FormattedTextControl(self._status), height=1, style="class:status"),
        ])  # fmt: skip
        self.application: Application[Any] = Application(
            layout=Layout(root, focused_element=self.entry if chat else tree_window),
            key_bindings=self._keys(),
            style=STYLE, full_screen=True, mouse_support=True, **app_options,
        )  # fmt: skip
        self.application.before_render += self._show_selected

    # -- reading the state ---------------------------------------------------------------

    def invalidate(self) -> None:
        """Draw again (after a change of the state or of a fold); a question to type the
        answer of takes the focus, and gives it back when answered."""
        if self.state.tree is not self._laid_out:
            self._laid_out = self.state.tree
            self.tree.lay_out(self.state.tree)
        layout = self.application.layout
        typing = getattr(self.state.question, "kind", "") == "input"
        if typing and not layout.has_focus(self.answer):
            self.answer.text = ""
            layout.focus(self.answer)
        elif not typing and layout.has_focus(self.answer):
            layout.focus(self.entry if self.chat else self.tree_window)
        self.application.invalidate()

    def show_tab(self, tab: int) -> None:
        """Show tab ``tab``; outside a chat its window takes the keys (in a chat the input
        keeps them; Ctrl-T moves there)."""
        self.tab = tab
        if self.chat is None:
            self.application.layout.focus(self._windows()[tab])

    def _windows(self) -> tuple[Window, Window, Window]:
        return (self.tree_window, self.output_window, self.logs_window)

    def _pane(self, tab: int, text: Callable[[], StyleAndTextTuples]) -> Window:
        """The window of tab ``tab`` (Output, Logs): ``text``, a cursor line moved by keys."""
        control = FormattedTextControl(
            text, focusable=True, show_cursor=False,
            get_cursor_position=lambda: Point(0, self.cursor[tab]),
        )  # fmt: skip
        return Window(control, wrap_lines=True, cursorline=True)

    def _counted(self, tab: int, lines: int) -> None:
        """Tab ``tab`` has ``lines`` lines now: its cursor follows the end, or stays."""
        self.lines[tab] = lines
        last = max(lines - 1, 0)
        self.cursor[tab] = last if self.following[tab] else min(self.cursor[tab], last)

    def move(self, tab: int, by: int) -> None:
        """Move the cursor line of tab ``tab`` by ``by`` lines (to the end with a large one),
        from where it is now: its lines are counted first, since a key typed right after
        the tab was shown may come before the tab was ever drawn."""
        (self._output if tab == 1 else self._logs)()
        last = max(self.lines[tab] - 1, 0)
        self.cursor[tab] = max(0, min(self.cursor[tab] + by, last))
        self.following[tab] = self.cursor[tab] == last

    def _tabs(self) -> StyleAndTextTuples:
        nodes = len(self.state.tree) - 1 if self.state.tree is not None else 0  # not the root
        counts = (nodes, len(self.state.sections), len(self.state.logs))
        fragments: StyleAndTextTuples = []
        for index, (name, count) in enumerate(zip(TABS, counts, strict=True)):
            style = "class:tab.active" if index == self.tab else "class:tab"
            if not count and index:
                style += " class:tab.empty"  # Output and Logs: nothing yet
            fragments += [(style, f" {index + 1} {name} ({count}) "), ("", " ")]
        return fragments

    def _show_selected(self, _: Any = None) -> None:
        """Put the selected node's content in the details pane when the selection moved."""
        rows = self.tree.rows
        node = rows[self.tree.selected].node if rows else None
        if node is not self._detailed:
            self._detailed = node
            self.details.text = shown(self.tree.body())

    def _output(self) -> StyleAndTextTuples:
        fragments: StyleAndTextTuples = []
        self.headers = {}
        line = 0
        for section in self.state.sections:
            if section.prompt:
                fragments.append(("class:prompt", f">> {shown(section.prompt)}\n"))
                line += 1 + section.prompt.count("\n")
            self.headers[line] = section
            line += 1
            glyph = FOLDED if section.folded else OPEN

            def toggle(event: MouseEvent, section: Any = section) -> Any:
                if event.event_type == MouseEventType.MOUSE_MOVE:
                    return self._hover(section)
                if event.event_type != MouseEventType.MOUSE_UP:
                    return NotImplemented
                section.folded = not section.folded
                self.invalidate()
                return None

            glyph_style = "reverse" if section is self.hovered_section else "class:section"
            fragments += [(glyph_style, glyph, toggle),
                          ("class:section", f"{section.title}\n", toggle)]  # fmt: skip
            if section.folded:
                continue
            if self.thoughts and section.thoughts:
                thoughts = shown("".join(section.thoughts)) + "\n"
                fragments.append(("class:thought", thoughts))
                line += thoughts.count("\n")
            text = shown(section.readable) + "\n"
            fragments.append(("", text, self._unhover))
            line += text.count("\n")
            if section.cancelled:
                fragments.append(("class:log.warning", "cancelled\n"))
                line += 1
            if section.error:
                said = f"error: {shown(section.error)}\n"
                fragments.append(("class:log.error", said))
                line += said.count("\n")
        self._counted(1, line)
        return fragments

    def _question(self) -> StyleAndTextTuples:
        question = self.state.question
        if question is None:
            return []
        text = shown(question.message)
        if question.kind == "confirm":
            hint = "y yes · n no" + (" · Enter: yes" if question.default else " · Enter: no")
        elif question.kind == "select":
            hint = " · ".join(f"{n} {shown(c)}" for n, c in enumerate(question.choices, 1))
        else:
            hint = "type the answer, Enter sends"
        return [("class:question", f"{text}\n"), ("class:question.hint", hint)]

    def _answered(self, answer: Any) -> None:
        question = self.state.question
        if question is not None:
            self.state.question = None
            self.respond(question.prompt_id, answer)
            self.invalidate()

    def _typed(self, buffer: Any) -> bool:
        self._answered(buffer.text)
        return False

    def _hover(self, section: Any) -> None:
        """The mouse is over ``section``'s heading: its glyph is drawn reversed."""
        if section is not self.hovered_section:
            self.hovered_section = section
            self.application.invalidate()

    def _unhover(self, event: MouseEvent) -> Any:
        if event.event_type != MouseEventType.MOUSE_MOVE:
            return NotImplemented
        self._hover(None)
        return None

    def _logs(self) -> StyleAndTextTuples:
        self._counted(2, len(self.state.logs))
        return [(f"class:log.{level}", f"{level}: {printable(message)}\n")
                for level, message in self.state.logs]  # fmt: skip

    def _status(self) -> StyleAndTextTuples:
        state = self.state
        cached = (f" (last {100 * state.last_cached // state.last_input}% cached of "
                  f"{state.stable:.0%} stable)" if state.last_input else "")  # fmt: skip
        cost = f" · ${state.cost:.4f}" if state.cost is not None else ""
        if state.running is not None:
            stop = "Esc cancels, Enter steers" if self.chat else "Ctrl-C cancels"
            doing = f"{state.running.what} {state.elapsed():.0f} s — {stop}"
        elif self.chat is not None:
            doing = "ready — Enter sends, Ctrl-D leaves"
        elif state.outcome is not None:
            doing = f"{type(state.outcome).__name__.removeprefix('Run').lower()} — q quits"
        else:
            doing = "waiting"
        mode = f"/{state.agent} · " if state.agent else ""  # the agent its turns run under
        return [("", f" {doing} · {mode}{state.model or '-'} · round {state.round} · tokens "
                     f"{state.prompt_tokens} in{cached}, {state.cached_tokens} cached, "
                     f"{state.completion_tokens} out{cost} ")]  # fmt: skip

    # -- keys ----------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()
        confirming, selecting, typing = (_asking(self, kind) for kind in ("confirm", "select",
                                                                           "input"))  # fmt: skip
        on_tree = Condition(lambda: self.tab == 0) & ~confirming & ~selecting & ~typing

        @keys.add("y", filter=confirming, eager=True)
        @keys.add("n", filter=confirming, eager=True)
        @keys.add("enter", filter=confirming, eager=True)
        def _(event: Any) -> None:
            key = event.key_sequence[0].key
            default = bool(self.state.question.default)
            self._answered(key == "y" if key in ("y", "n") else default)

        for number in range(1, 10):

            @keys.add(str(number), filter=selecting, eager=True)
            def _(event: Any, number: int = number) -> None:
                choices = self.state.question.choices
                if number <= len(choices):
                    self._answered(choices[number - 1])

        entering = has_focus(self.entry)
        free = ~confirming & ~selecting & ~typing & ~entering
        on_tree = on_tree & ~entering & ~has_focus(self.details)

        @keys.add("f1")
        @keys.add("f2")
        @keys.add("f3")
        def _(event: Any) -> None:
            self.show_tab(int(event.key_sequence[0].key.value[1]) - 1)

        @keys.add("c-t", filter=Condition(lambda: self.chat is not None))
        def _(event: Any) -> None:
            """Move between the chat's input and the tree."""
            layout = self.application.layout
            pane = self._windows()[self.tab]
            layout.focus(pane if layout.has_focus(self.entry) else self.entry)

        @keys.add("escape", filter=Condition(lambda: self.state.running is not None))
        def _(event: Any) -> None:
            self.cancel()

        @keys.add("c-d", filter=entering & Condition(lambda: not self.entry.text))
        def _(event: Any) -> None:
            self.application.exit()

        @keys.add("1", filter=free)
        @keys.add("2", filter=free)
        @keys.add("3", filter=free)
        def _(event: Any) -> None:
            self.show_tab(int(event.key_sequence[0].key) - 1)

        @keys.add("tab", filter=free)
        def _(event: Any) -> None:
            self.show_tab((self.tab + 1) % len(TABS))

        for names, by in ((("down",), 1), (("j",), 1), (("up",), -1), (("k",), -1),
                          (("pagedown",), 20), (("pageup",), -20)):  # fmt: skip

            @keys.add(*names, filter=on_tree)
            def _(event: Any, by: int = by) -> None:
                self.tree.move(by)

        @keys.add("enter", filter=on_tree)
        @keys.add("space", filter=on_tree)
        def _(event: Any) -> None:
            self.tree.toggle()

        on_pane = Condition(lambda: self.tab in (1, 2)) & free
        for names, by in ((("down",), 1), (("j",), 1), (("up",), -1), (("k",), -1),
                          (("pagedown",), 20), (("pageup",), -20), (("home",), -10**9),
                          (("end",), 10**9)):  # fmt: skip

            @keys.add(*names, filter=on_pane)
            def _(event: Any, by: int = by) -> None:
                self.move(self.tab, by)

        @keys.add("enter", filter=on_pane & Condition(lambda: self.tab == 1))
        @keys.add("space", filter=on_pane & Condition(lambda: self.tab == 1))
        def _(event: Any) -> None:
            section = self.headers.get(self.cursor[1])
            if section is not None:
                section.folded = not section.folded

        @keys.add("c-c")
        def _(event: Any) -> None:
            self._stop()

        @keys.add("q", filter=free)
        def _(event: Any) -> None:
            self._stop()

        @keys.add("d", filter=free & Condition(lambda: self.tab == 0))
        def _(event: Any) -> None:
            """Move between the tree and the selected node's content (to scroll it)."""
            layout = self.application.layout
            layout.focus(self.tree_window if layout.has_focus(self.details) else self.details)

        return keys

    def _stop(self) -> None:
        """Leave when the run has ended; before that, cancel it (leaving follows). In a
        chat, cancel the reply in flight, or leave when none is."""
        if self.chat is not None:
            if self.state.running is not None:
                self.cancel()
            else:
                self.application.exit()
            return
        self.quitting = True
        if self.state.outcome is not None:
            self.application.exit()
        else:
            self.cancel()

    def _entered(self, buffer: Any) -> bool:
        if buffer.text.strip() and self.chat is not None:
            self.chat(buffer.text)
        return False
