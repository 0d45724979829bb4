// The page: one WebSocket to `tai web`, the wire of `tai serve -stdio` (commands out,
// events in), and the views of the open session. Every session's state is folded from
// its events; after a (re)connection the server replays what it kept of the live
// sessions, so the page starts from scratch then and ends up where the others are.

import { el, replace } from "./dom.js";
import { drawChart } from "./chart.js";
import { TreeView } from "./tree.js";

const $ = (id) => document.getElementById(id);
const sessions = new Map();
let current = null;
let socket = null;
let retry = 250;
// Sessions this page started or loaded: shown once they start.
const opening = new Set();
const tree = new TreeView($("tree"), $("node"));
// What tests and benchmarks read: when each text piece was shown, the tree's last layout.
window.tai = { shown: [], tree, sessions };

function session(id) {
  let s = sessions.get(id);
  if (!s) {
    s = { id, model: "", status: "idle", sections: [], nodes: [], logs: [], calls: [],
          question: null, outcome: null, diff: "", live: true };
    sessions.set(id, s);
  }
  return s;
}

function send(command) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(command));
}

// -- the connection ---------------------------------------------------------------------

function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  socket = new WebSocket(url);
  $("connection").dataset.state = "connecting";
  $("connection").textContent = "connecting…";
  socket.onopen = () => { retry = 250; };
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = () => {
    $("connection").dataset.state = "closed";
    $("connection").textContent = "disconnected, reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// Events that are not about one live session, or that make one.
const PAGE_EVENTS = new Set(["hello", "caught_up", "session_started", "sessions_listed",
  "session_deleted", "session_exported", "extensions_reloaded", "notice"]);

function receive(event) {
  const handler = HANDLERS[event.type];
  if (!handler) return;
  let s = sessions.get(event.session_id) || null;
  if (!s && !PAGE_EVENTS.has(event.type)) return;
  if (!s && event.type !== "session_started") s = sessions.get(current) || null;
  handler(event, s);
}

// -- events -----------------------------------------------------------------------------

function log(s, level, message) {
  if (!s) {
    $("flash").textContent = `${level}: ${message}`;
    return;
  }
  if (level === "error") $("flash").textContent = `${level}: ${message}`;
  s.logs.push([level, message]);
  if (s.id === current) $("logs").append(logLine([level, message]));
}

function logLine([level, message]) {
  return el("li", { class: level }, el("span", { class: "level", text: level }), message);
}

function newSection(s, round, attempt) {
  const sec = { round, attempt, text: "", thoughts: "", prompt: s.prompted || "", node: null };
  s.prompted = "";
  s.sections.push(sec);
  if (s.id === current) $("output").append(...sectionNode(sec));
  return sec;
}

function section(s, round) {
  const last = s.sections[s.sections.length - 1];
  return last && last.round === round ? last : newSection(s, round, 1);
}

function sectionNode(sec) {
  const text = el("pre", { class: "text", text: sec.text });
  const thoughts = el("pre", { text: sec.thoughts });
  const details = el("details", { class: "thoughts", hidden: !sec.thoughts }, el("summary", { text: "thoughts" }), thoughts);
  sec.node = { text, thoughts, details };
  const title = `Round ${sec.round}` + (sec.attempt > 1 ? `, attempt ${sec.attempt}` : "");
  const section = el("div", { class: "section", dataset: { round: sec.round } },
    el("h3", { text: title }), sec.prompt ? el("div", { class: "prompt", text: sec.prompt }) : null,
    details, text);
  return sec.outcome ? [section, outcomeNode(sec.outcome)] : [section];
}

function outcomeNode(outcome) {
  const report = outcome.report
    ? el("details", { class: "report" }, el("summary", { text: "usage" }), el("pre", { text: outcome.report }))
    : null;
  return el("div", { class: `outcome ${outcome.kind}` }, el("div", { text: outcome.text }), report);
}

// A run's end is shown after the last section of its turn (kept on it, for a redraw).
function ended(kind, text) {
  return (e, s) => {
    const outcome = { kind, text: text(e), report: e.report || "" };
    const last = s.sections[s.sections.length - 1];
    if (last) last.outcome = outcome;
    s.outcome = outcome;
    s.question = null;
    if (kind === "finished") s.diff = e.diff || "";
    if (s.id === current) {
      $("output").append(outcomeNode(outcome));
      drawQuestion(s);
      $("diff").textContent = s.diff || "No changes.";
    }
  };
}

const HANDLERS = {
  hello(e) {
    sessions.clear();
    for (const id of e.live) session(id);
    replace($("commands"), ...e.commands.map((c) => el("li", {},
      el("button", { type: "button", text: `/${c.name}`, title: c.description,
        onclick: () => { $("input").value = `/${c.name} `; $("input").focus(); } }),
      el("span", { class: "meta", text: c.description }))));
    $("connection").dataset.state = "catching-up";
  },
  caught_up() {
    $("connection").dataset.state = "open";
    $("connection").textContent = "connected";
    if (current && !sessions.has(current)) current = null;
    if (!current && sessions.size) current = [...sessions.keys()].pop();
    show();
    send({ type: "list", limit: 50 });
  },
  session_started(e) {
    const s = session(e.session_id);
    Object.assign(s, { model: e.model, status: "idle", sections: [], nodes: [], logs: [],
                       calls: [], question: null, outcome: null, diff: "", live: true });
    if (opening.delete(s.id) || !current) current = s.id;
    if (current === s.id) show();
    else drawLists();
  },
  round_started(e, s) {
    s.outcome = null;
    newSection(s, e.round, e.attempt);
  },
  text_received(e, s) {
    const sec = section(s, e.round);
    sec.text += e.text;
    if (sec.node && s.id === current) {
      sec.node.text.append(e.text);
      window.tai.shown.push([e.text, performance.timeOrigin + performance.now()]);
    }
  },
  thought_received(e, s) {
    const sec = section(s, e.round);
    sec.thoughts += e.text;
    if (sec.node && s.id === current) {
      sec.node.thoughts.append(e.text);
      sec.node.details.hidden = false;
    }
  },
  thought_summarized: (e, s) => log(s, "thoughts", e.summary),
  block_parsed: (e, s) => log(s, "block", `${e.block.kind} block parsed`),
  parse_failed: (e, s) => log(s, "warning", `a malformed block: ${e.error.message || JSON.stringify(e.error)}`),
  block_started: (e, s) => log(s, "block", `${e.block.kind} block runs`),
  block_finished: (e, s) => log(s, e.result.ok ? "result" : "error", `${e.block.kind}: ${e.result.text}`),
  usage_reported(e, s) {
    s.calls.push({ round: e.round, input: e.usage.input, cached: e.usage.cache_read, output: e.usage.output });
    if (s.id === current) drawChart($("chart"), s.calls);
  },
  notice: (e, s) => log(s, e.level, e.message),
  round_ended: (e, s) => log(s, "round", `round ${e.round}: ${e.outcome}`),
  changes_written: (e, s) => log(s, "written", e.paths.join(", ")),
  tree_changed(e, s) {
    if (e.replaced) {  // not grown: a cancelled turn's nodes were taken back
      s.nodes = [...e.nodes];
      if (s.id === current) { tree.clear(); tree.add(s.nodes); }
      return;
    }
    s.nodes.push(...e.nodes);
    if (s.id === current) tree.add(e.nodes);
  },
  run_finished: ended("finished", (e) => e.summary || "done"),
  run_failed: ended("failed", (e) => e.message),
  run_cancelled: ended("cancelled", () => "cancelled"),
  session_closed(e, s) {
    s.live = false;
    s.status = "closed";
    if (s.id === current) drawStatus(s);
    drawLists();
  },
  session_status_changed(e, s) {
    s.status = e.status;
    if (e.error) log(s, "error", e.error);
    if (s.id === current) drawStatus(s);
    drawLists();
  },
  session_updated(e, s) { s.model = e.model; if (s.id === current) drawStatus(s); },
  agent_activated(e, s) {
    s.model = e.model;
    log(s, "agent", `${e.name ? "/" + e.name : "the session's own prompt"} (kinds: ${e.kinds.join(", ")})`);
  },
  session_reset(e, s) {
    Object.assign(s, { sections: [], nodes: [], calls: [], outcome: null, diff: "" });
    if (s.id === current) show();
  },
  session_compacted: (e, s) => log(s, "compacted", `${e.messages_before} messages into a summary`),
  sessions_listed(e) { kept = e.sessions; drawLists(); },
  session_loaded(e, s) { log(s, "loaded", `${e.messages} messages`); },
  session_deleted(e) {
    sessions.delete(e.session_id);
    if (current === e.session_id) { current = null; show(); }
    kept = kept.filter((h) => h.id !== e.session_id);
    drawLists();
    log(sessions.get(current), "deleted", e.session_id);
  },
  session_exported: (e, s) => log(s, "exported", e.path),
  extension_command_finished: (e, s) => { for (const line of e.output.split("\n")) log(s, "command", line); },
  prompt_requested(e, s) { s.question = e; if (s.id === current) drawQuestion(s); },
  prompt_answered(e, s) {
    if (s.question && s.question.prompt_id === e.prompt_id) s.question = null;
    if (s.id === current) drawQuestion(s);
  },
  extensions_reloaded(e) {
    const s = sessions.get(current);
    log(s, "reloaded", `${e.plugins.length} plugins`);
    for (const problem of e.problems) log(s, "warning", problem);
  },
};
let kept = [];

// -- drawing ----------------------------------------------------------------------------

function drawStatus(s) {
  $("session-name").textContent = s ? `session ${s.id}` : "no session open";
  $("session-status").textContent = s ? s.status : "";
  $("model").textContent = s ? s.model : "";
  const streaming = Boolean(s && s.status === "streaming");
  $("cancel").disabled = !streaming;
  $("send").textContent = streaming ? "Steer" : "Send";
}

function drawQuestion(s) {
  const box = $("question");
  const q = s && s.question;
  box.hidden = !q;
  if (!q) return box.replaceChildren();
  const answer = (value) => send({ type: "respond", session_id: s.id, prompt_id: q.prompt_id, answer: value });
  let controls;
  if (q.kind === "confirm") {
    controls = [el("button", { type: "button", text: "Yes", onclick: () => answer(true) }),
                el("button", { type: "button", text: "No", onclick: () => answer(false) })];
  } else if (q.kind === "select") {
    controls = q.choices.map((c) => el("button", { type: "button", text: c, onclick: () => answer(c) }));
  } else {
    const field = el("input", { type: "text", value: q.default ?? "" });
    controls = [field, el("button", { type: "button", text: "Answer", onclick: () => answer(field.value) })];
  }
  box.replaceChildren(el("div", { class: "message", text: q.message }), ...controls);
}

function drawLists() {
  replace($("live"), ...[...sessions.values()].filter((s) => s.live).map((s) => el("li",
    { class: s.id === current ? "current" : "", dataset: { id: s.id } },
    el("span", { class: "id", text: s.id, onclick: () => { current = s.id; show(); } }),
    el("span", { class: "meta", text: `${s.model} · ${s.status}` }))));
  replace($("kept"), ...kept.map((h) => el("li", { dataset: { id: h.id } },
    el("span", { class: "id", text: h.id.slice(0, 12) }),
    el("span", { class: "meta", text: `${h.model} · ${h.messages} messages · ${h.updated_at.slice(0, 16)}` }),
    el("button", { type: "button", text: "open", onclick: () => open(h.id) }),
    el("button", { type: "button", text: "delete", onclick: () => send({ type: "delete", session_id: h.id }) }),
    el("button", { type: "button", text: "export",
      onclick: () => send({ type: "export", session_id: h.id, path: `tai-session-${h.id}.jsonl` }) }))));
}

function open(id) {
  const live = sessions.get(id);
  if (live && live.live) { current = id; return show(); }
  opening.add(id);
  send({ type: "load", session_id: id });
}

function show() {
  const s = sessions.get(current);
  drawStatus(s);
  drawLists();
  replace($("output"), ...(s ? s.sections.flatMap(sectionNode) : []));
  replace($("logs"), ...(s ? s.logs.map(logLine) : []));
  tree.clear();
  if (s) tree.add(s.nodes);
  drawChart($("chart"), s ? s.calls : []);
  $("diff").textContent = (s && s.diff) || "No changes yet.";
  drawQuestion(s);
}

// -- input ------------------------------------------------------------------------------

function submit() {
  const text = $("input").value;
  if (!text.trim()) return;
  const s = sessions.get(current);
  if (!s || !s.live) {
    $("flash").textContent = "start a new session or open a kept one first";
    return;
  }
  $("input").value = "";
  if (text.startsWith("/")) {
    const [name, ...rest] = text.slice(1).split(/\s+/);
    const args = text.slice(1 + name.length).trim();
    if (name === "reload") return send({ type: "reload" });
    if (name === "compact") return send({ type: "compact", session_id: s.id, instructions: args });
    return send({ type: "command", session_id: s.id, command: name, args: rest.length ? args : "" });
  }
  if (s.status === "streaming") return send({ type: "steer", session_id: s.id, text });
  s.prompted = text;
  send({ type: "submit", session_id: s.id, text });
}

function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

$("input-form").addEventListener("submit", (e) => { e.preventDefault(); submit(); });
$("input").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); submit(); }
});
$("cancel").addEventListener("click", () => current && send({ type: "cancel", session_id: current }));
$("new-session").addEventListener("click", () => {
  const id = newId();
  opening.add(id);
  send({ type: "start", session_id: id, shell: $("shell").checked });
});
$("refresh").addEventListener("click", () => send({ type: "list", limit: 50 }));
for (const button of document.querySelectorAll("#tabs button")) {
  button.addEventListener("click", () => {
    for (const other of document.querySelectorAll("#tabs button")) other.classList.toggle("active", other === button);
    for (const tab of document.querySelectorAll(".tab")) tab.hidden = tab.id !== `tab-${button.dataset.tab}`;
    if (button.dataset.tab === "tree") tree.draw();
  });
}

connect();
