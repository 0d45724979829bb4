// Tokens per model call: prompt, cached and completion as bars, and beside them the share
// of the prompt the provider's cache served against the share tai expected it to serve
// (the request before it, which a conversation only extends: its stable prefix).

import { el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// calls: [{round, input, cached, output}] in the order made.
export function shares(calls) {
  return calls.map((call, i) => {
    const previous = i > 0 ? calls[i - 1].input : 0;
    return {
      ...call,
      hit: call.input ? call.cached / call.input : 0,
      stable: call.input ? Math.min(previous / call.input, 1) : 0,
    };
  });
}

const pct = (x) => `${Math.round(x * 100)}%`;

export function drawChart(container, calls) {
  const rows = shares(calls);
  if (!rows.length) {
    container.replaceChildren(el("p", { class: "empty", text: "No model call yet." }));
    return;
  }
  const barW = 10, gap = 14, group = 3 * barW + gap, height = 160, pad = 24;
  const width = Math.max(240, rows.length * group + pad * 2);
  const top = Math.max(...rows.map((r) => Math.max(r.input, r.output)), 1);
  const chart = svg("svg", { width, height: height + 30, class: "usage-chart", role: "img" });
  chart.append(svg("title", {}, "Tokens per model call: prompt, cached, completion"));
  rows.forEach((r, i) => {
    const x = pad + i * group;
    [["prompt", r.input], ["cached", r.cached], ["completion", r.output]].forEach(([kind, n], k) => {
      const h = (n / top) * height;
      const bar = svg("rect", { x: x + k * barW, y: height - h, width: barW - 1, height: h, class: `bar ${kind}` });
      bar.append(svg("title", {}, `round ${r.round}: ${n} ${kind} tokens`));
      chart.append(bar);
    });
    chart.append(svg("text", { x: x + barW * 1.5, y: height + 14, "text-anchor": "middle", class: "axis" }, `${r.round}`));
  });
  const legend = el("div", { class: "legend" },
    el("span", { class: "key prompt", text: "prompt" }),
    el("span", { class: "key cached", text: "cached" }),
    el("span", { class: "key completion", text: "completion" }));
  const table = el("table", { class: "shares" },
    el("thead", {}, el("tr", {}, ...["round", "prompt", "cached", "completion", "cache hit", "stable prefix"].map((t) => el("th", { text: t })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {},
      ...[r.round, r.input, r.cached, r.output, pct(r.hit), pct(r.stable)].map((v) => el("td", { text: String(v) }))))));
  container.replaceChildren(legend, chart, table);
}
