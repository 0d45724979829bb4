// The session tree as a virtual list: only the rows in view are in the DOM, so a tree of
// 10,000 nodes lays out as fast as one of ten. Folding changes which rows exist; the
// visible rows are recomputed (a walk of the unfolded nodes) only when the tree or a fold
// changes, and drawn again on scroll.

import { el } from "./dom.js";

const ROW = 22; // px, as in style.css (.tree-row)

export class TreeView {
  constructor(scroller, content) {
    this.scroller = scroller;
    this.content = content;
    this.canvas = el("div", { class: "tree-canvas" });
    scroller.replaceChildren(this.canvas);
    this.nodes = new Map(); // name -> {name, parent, kind, body, attrs}
    this.children = new Map(); // name -> [names]
    this.folded = new Set();
    this.rows = [];
    this.selected = null;
    this.lastRender = 0;
    this.pending = false;
    scroller.addEventListener("scroll", () => this.draw());
  }

  clear() {
    this.nodes.clear();
    this.children.clear();
    this.folded.clear();
    this.selected = null;
    this.content.textContent = "";
    this.changed();
  }

  add(nodes) {
    for (const node of nodes) {
      this.nodes.set(node.name, node);
      const siblings = this.children.get(node.parent);
      if (siblings) siblings.push(node.name);
      else this.children.set(node.parent, [node.name]);
    }
    this.changed();
  }

  toggle(name) {
    if (this.folded.has(name)) this.folded.delete(name);
    else this.folded.add(name);
    this.changed(true);
  }

  select(name) {
    this.selected = name;
    const node = this.nodes.get(name);
    const attrs = Object.entries(node.attrs || {}).map(([k, v]) => `${k}=${v}`).join("  ");
    this.content.textContent = `${node.kind} ${node.name}${attrs ? "\n" + attrs : ""}\n\n${node.body}`;
    this.draw();
  }

  // Coalesce the changes of one frame; `now` lays out at once (a user's fold).
  changed(now = false) {
    if (now) return this.layout();
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.layout();
    });
  }

  layout() {
    const started = performance.now();
    const rows = [];
    const top = this.children.get("session") || [];
    const stack = [];
    for (let i = top.length - 1; i >= 0; i--) stack.push([top[i], 0]);
    while (stack.length) {
      const [name, depth] = stack.pop();
      rows.push([name, depth]);
      const kids = this.children.get(name);
      if (kids && !this.folded.has(name)) {
        for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1]);
      }
    }
    this.rows = rows;
    this.canvas.style.height = `${rows.length * ROW}px`;
    this.draw();
    this.lastRender = performance.now() - started;
  }

  draw() {
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW) - 10);
    const last = Math.min(this.rows.length, first + Math.ceil(height / ROW) + 20);
    const shown = [];
    for (let i = first; i < last; i++) shown.push(this.row(i));
    this.canvas.replaceChildren(...shown);
  }

  row(index) {
    const [name, depth] = this.rows[index];
    const node = this.nodes.get(name);
    const kids = this.children.get(name);
    const toggle = kids
      ? el("button", {
          class: "fold", text: this.folded.has(name) ? "▸" : "▾", title: "fold or unfold",
          onclick: (event) => { event.stopPropagation(); this.toggle(name); },
        })
      : el("span", { class: "fold" });
    const line = (node.body || "").split("\n", 1)[0].slice(0, 160);
    const row = el(
      "div",
      {
        class: "tree-row" + (name === this.selected ? " selected" : ""),
        dataset: { name, kind: node.kind },
        onclick: () => this.select(name),
      },
      toggle,
      el("span", { class: `kind kind-${node.kind}`, text: node.kind }),
      el("span", { class: "line", text: line }),
    );
    row.style.top = `${index * ROW}px`;
    row.style.paddingLeft = `${depth * 14}px`;
    return row;
  }
}
